package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.READ_FILE;
import static dev.bellows.agent.DefaultAgentTest.TASK;
import static dev.bellows.agent.DefaultAgentTest.agent;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static dev.bellows.agent.DefaultAgentTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.testkit.ScriptedProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link DefaultAgent#runBlocking}: the loop of {@code run(...).await()}, on the calling thread. */
class RunBlockingTest {

    private static final String[] SCRIPT = {"Reading it. " + read("a.txt"), complete("a.txt says hi")};

    @Test
    void theSameEventsInTheSameOrderAndTheSameResultAsRunThenAwait() {
        List<AgentEvent> viaRun = new CopyOnWriteArrayList<>();
        DefaultAgent background = agent(provider(SCRIPT), READ_FILE).listener(viaRun::add).build();
        AgentResult expected = background.run(TASK).await();

        List<AgentEvent> viaBlocking = new ArrayList<>();
        List<Thread> heardOn = new ArrayList<>();
        DefaultAgent blocking = agent(provider(SCRIPT), READ_FILE).listener(event -> {
            viaBlocking.add(event);
            heardOn.add(Thread.currentThread());
        }).build();
        AgentResult result = blocking.runBlocking(TASK);

        assertThat(result).isEqualTo(expected).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "a.txt says hi"));
        assertThat(viaBlocking).isEqualTo(viaRun);
        assertThat(viaBlocking.getFirst().type()).isEqualTo("loop_start");
        assertThat(viaBlocking.getLast().type()).isEqualTo("loop_end");
        assertThat(heardOn).containsOnly(Thread.currentThread());
    }

    @Test
    void aRunWithoutAHandleKeepsNoEventsButTheListenersHearThemAll() {
        List<AgentEvent> heard = new ArrayList<>();
        RunHandle run = new RunHandle(List.of(heard::add));
        run.keepNoEvents();
        LoopEnds.runBetweenStartAndEnd(run, "task",
                () -> new dev.bellows.event.LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "done"));

        assertThat(heard).extracting(AgentEvent::type).containsExactly("loop_start", "loop_end");
        assertThat(run.keptEvents()).isZero();
        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
    }

    @Test
    void theCallersExecutorIsNotUsed() {
        AtomicInteger executed = new AtomicInteger();
        DefaultAgent agent = agent(provider(SCRIPT), READ_FILE).executor(task -> {
            executed.incrementAndGet();
            task.run();
        }).build();

        assertThat(agent.runBlocking(TASK).result()).isEqualTo("a.txt says hi");
        assertThat(executed).hasValue(0);
    }

    @Test
    void aSessionContinuesAcrossBlockingRuns() {
        ScriptedProvider provider = provider(complete("first"), complete("second"));
        DefaultAgent agent = agent(provider, READ_FILE).build();
        Session session = new Session();

        assertThat(agent.runBlocking("one", session).result()).isEqualTo("first");
        assertThat(agent.runBlocking("two", session).result()).isEqualTo("second");
        assertThat(provider.requests().get(1).messages()).anySatisfy(message ->
                assertThat(message.content()).isEqualTo("one"));
    }

    @Test
    void aSessionWithARunGoingOnIsRefusedAsRunRefusesIt() throws Exception {
        CountDownLatch inTool = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        dev.bellows.tool.Tool waiting = dev.bellows.tool.TypedTool.of("read_file", "Reads a file",
                DefaultAgentTest.PathArguments.class, (context, arguments) -> {
                    inTool.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return dev.bellows.tool.ToolResult.of("hi");
                });
        DefaultAgent agent = agent(provider(SCRIPT), waiting).memory(ConversationMemory.builder().build()).build();
        AgentRun running = agent.run(TASK);
        inTool.await();
        try {
            assertThatThrownBy(() -> agent.runBlocking("another")).isInstanceOf(IllegalStateException.class);
        } finally {
            release.countDown();
        }
        assertThat(running.await().result()).isEqualTo("a.txt says hi");
    }
}
