package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.agent;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Sub-agents in parallel calls pass their events on one at a time, in order, without a call's
 * thread waiting for a listener: a listener that is slow on one sub-agent's event holds up
 * neither the other sub-agent nor its call.
 */
class ForwardedEventsTest {

    private static String delegate(String agent) {
        return call(agent, "{\"task\": \"work\"}");
    }

    @Test
    void aSlowListenerHoldsUpNoCallAndNeverRunsTwiceAtOnce() throws Exception {
        DefaultAgent left = agent(provider(complete("left done"))).build();
        DefaultAgent right = agent(provider(complete("right done"))).build();
        CountDownLatch rightReturned = new CountDownLatch(1);
        AtomicInteger inListener = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<Boolean> heldUntilRightReturned = new CopyOnWriteArrayList<>();
        List<String> order = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("left") + delegate("right"), complete("both done")),
                AgentTool.of("left", "Works", left), AgentTool.of("right", "Works", right))
                .toolInterceptor(chain -> {
                    var outcome = chain.proceed();
                    if (chain.call().toolName().equals("right")) {
                        rightReturned.countDown();
                    }
                    return outcome;
                })
                .listener(event -> {
                    mostAtOnce.accumulateAndGet(inListener.incrementAndGet(), Math::max);
                    try {
                        if (event instanceof LoopEvent.SubAgentEvent nested) {
                            order.add(nested.agent() + " " + nested.innermost().type());
                            if (nested.agent().equals("left") && heldUntilRightReturned.isEmpty()) {
                                // the listener sits on left's first event until right's call has returned
                                heldUntilRightReturned.add(rightReturned.await(30, TimeUnit.SECONDS));
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        inListener.decrementAndGet();
                    }
                }).build();

        AgentResult result = lead.run("Both").await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "both done"));
        assertThat(heldUntilRightReturned).containsExactly(true);
        assertThat(mostAtOnce.get()).isEqualTo(1);
        // each sub-agent's events in its own order, all of them told
        for (String agent : List.of("left", "right")) {
            assertThat(order.stream().filter(line -> line.startsWith(agent + " ")).toList())
                    .startsWith(agent + " loop_start").endsWith(agent + " loop_end");
        }
    }
}
