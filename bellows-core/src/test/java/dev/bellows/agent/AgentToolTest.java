package dev.bellows.agent;

import tools.jackson.databind.JsonNode;
import dev.bellows.json.internal.Jackson;
import static dev.bellows.agent.DefaultAgentTest.READ_FILE;
import static dev.bellows.agent.DefaultAgentTest.agent;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static dev.bellows.agent.DefaultAgentTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import dev.bellows.provider.TokenUsage;
import dev.bellows.tool.ToolContext;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link AgentTool}: an agent that runs inside another's tool call, its events passed on as they happen. */
class AgentToolTest {

    private static String delegate(String agent, String task) {
        return call(agent, "{\"task\": \"" + task + "\"}");
    }

    @Test
    void theSubAgentsAnswerIsTheCallsResultAndItsEventsReachTheCallerMarkedWithItsNameAndTheCall() {
        ScriptedProvider child = provider("Looking. " + read("facts.txt"), complete("water boils at 100 C"));
        DefaultAgent researcher = agent(child, READ_FILE).build();
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        List<String> callIds = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("researcher", "find the boiling point"), complete("done")),
                AgentTool.of("researcher", "Finds facts", researcher))
                .toolInterceptor(chain -> {
                    callIds.add(chain.callId());
                    return chain.proceed();
                })
                .listener(heard::add).build();

        AgentResult result = lead.run("When does water boil?").await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
        List<LoopEvent.SubAgentEvent> nested = heard.stream().filter(LoopEvent.SubAgentEvent.class::isInstance)
                .map(LoopEvent.SubAgentEvent.class::cast).toList();
        assertThat(nested).isNotEmpty().allSatisfy(event -> {
            assertThat(event.agent()).isEqualTo("researcher");
            assertThat(event.parentCallId()).isEqualTo(callIds.getFirst());
            assertThat(event.depth()).isEqualTo(1);
        });
        assertThat(nested.getFirst().event()).isEqualTo(new LoopEvent.LoopStart("find the boiling point"));
        assertThat(nested).extracting(AgentEvent::type).contains("tool_result", "loop_end");
        // as they happen: all of the sub-agent's events come before the parent's result of the call
        int parentResult = indexOf(heard, e -> e instanceof LoopEvent.ToolResultEvent r && r.toolName().equals("researcher"));
        assertThat(heard.indexOf(nested.getLast())).isLessThan(parentResult);
        assertThat(((LoopEvent.ToolResultEvent) heard.get(parentResult)).result()).isEqualTo("water boils at 100 C");
        // fresh memory: the sub-agent's model saw its task, not the caller's conversation
        assertThat(child.requests().getFirst().messages().toString()).contains("find the boiling point")
                .doesNotContain("When does water boil?");
    }

    @Test
    void subAgentsNestToAnyDepthAndTheirJsonNamesTheAgentThatEmittedAndItsParentsCall() {
        DefaultAgent checker = agent(provider(complete("checked"))).build();
        List<String> middleCalls = new CopyOnWriteArrayList<>();
        DefaultAgent researcher = agent(provider(delegate("checker", "check it"), complete("found and checked")),
                AgentTool.of("checker", "Checks facts", checker))
                .toolInterceptor(chain -> {
                    middleCalls.add(chain.callId());
                    return chain.proceed();
                }).build();
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("researcher", "research"), complete("all done")),
                AgentTool.of("researcher", "Finds facts", researcher)).listener(heard::add).build();

        assertThat(lead.run("go").await().result()).isEqualTo("all done");

        LoopEvent.SubAgentEvent deep = heard.stream().filter(e -> e instanceof LoopEvent.SubAgentEvent s
                && s.depth() == 2 && s.innermost() instanceof LoopEvent.LoopEnd).map(LoopEvent.SubAgentEvent.class::cast)
                .findFirst().orElseThrow();
        assertThat(deep.agent()).isEqualTo("researcher");
        assertThat(deep.deepest().agent()).isEqualTo("checker");
        JsonNode json = EventJson.toJson(deep, false);
        assertThat(json.get("type").asString()).isEqualTo("loop_end");
        assertThat(json.get("result").asString()).isEqualTo("checked");
        assertThat(json.get("agent").asString()).isEqualTo("checker");
        assertThat(json.get("parent_call_id").asString()).isEqualTo(middleCalls.getFirst());
        assertThat(EventJson.toJson((LoopEvent) deep).get("agent").asString()).isEqualTo("checker");
    }

    @Test
    void aSubAgentThatDoesNotFinishIsAFailedCallTheCallerReads() {
        DefaultAgent looping = agent(provider("thinking, no call", "still no call")).maxIterations(1).build();
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("looping", "try"), complete("gave up")),
                AgentTool.of("looping", "Never finishes", looping)).listener(heard::add).build();

        assertThat(lead.run("go").await().result()).isEqualTo("gave up");
        assertThat(heard).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(LoopEvent.ToolResultError.class,
                error -> assertThat(error.error()).contains("looping ended max_iterations")));
    }

    @Test
    void aCallWithoutATaskIsRefusedAndANameMustBeOne() {
        AgentTool tool = AgentTool.of("writer", "Writes", agent(provider(complete("x"))).build());
        assertThatThrownBy(() -> tool.call(ToolContext.of("local", "writer"),
                Jackson.JSON.createObjectNode()))
                .hasMessageContaining("\"task\" is required");
        assertThat(tool.inputSchema().at("/required/0").asString()).isEqualTo("task");
        assertThatThrownBy(() -> AgentTool.of("no spaces", "x", agent(provider()).build()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cancellingTheCallerCancelsTheSubAgentsModelRequest() throws Exception {
        HangingProvider hanging = new HangingProvider();
        DefaultAgent slow = agent(hanging).build();
        DefaultAgent lead = agent(provider(delegate("slow", "wait")), AgentTool.of("slow", "Hangs", slow)).build();

        AgentRun run = lead.run("go");
        assertThat(hanging.started.await(30, TimeUnit.SECONDS)).isTrue();
        run.cancel();

        assertThat(run.await().reason()).isEqualTo(LoopEndReason.CANCELLED);
        assertThat(hanging.cancelled.await(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aSequencePassesEachAnswerOnAsTheNextTaskAndAnswersWithTheLast() {
        ScriptedProvider second = provider(complete("polished: draft about tea"));
        AgentTool pipeline = AgentTool.sequence("pipeline", "Drafts then polishes", List.of(
                AgentTool.of("drafter", "Drafts", agent(provider(complete("draft about tea"))).build()),
                AgentTool.of("polisher", "Polishes", agent(second).build())));
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("pipeline", "write about tea"), complete("done")), pipeline)
                .listener(heard::add).build();

        assertThat(lead.run("go").await().result()).isEqualTo("done");
        assertThat(second.requests().getFirst().messages().toString()).contains("draft about tea");
        assertThat(heard).filteredOn(LoopEvent.ToolResultEvent.class::isInstance)
                .map(e -> ((LoopEvent.ToolResultEvent) e).result()).contains("polished: draft about tea");
        assertThat(heard).filteredOn(e -> e instanceof LoopEvent.SubAgentEvent s && s.innermost() instanceof LoopEvent.LoopStart)
                .map(e -> ((LoopEvent.SubAgentEvent) e).agent()).containsExactly("drafter", "polisher");
    }

    @Test
    void aParallelWorkflowMergesTheAnswersHeadedByNameAndKeepsToItsBound() {
        java.util.concurrent.atomic.AtomicInteger active = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        ScriptedProvider merger = provider(complete("merged"));
        AgentTool both = AgentTool.parallel("both", "Asks both", List.of(
                AgentTool.of("north", "North", agent(counting(provider(complete("cold")), active, most)).build()),
                AgentTool.of("south", "South", agent(counting(provider(complete("warm")), active, most)).build())),
                AgentTool.of("merge", "Merges", agent(merger).build()), 1);
        DefaultAgent lead = agent(provider(delegate("both", "weather?"), complete("done")), both).build();

        assertThat(lead.run("go").await().result()).isEqualTo("done");
        assertThat(merger.requests().getFirst().messages().toString()).contains("## north\ncold\n\n## south\nwarm");
        assertThat(most).hasValue(1);
    }

    @Test
    void withAnExecutorThatRunsOnTheCallingThreadEverySubAgentAndBranchRunsAndIsHeardOnTheCallersThread() {
        // A driver that allows no thread of another's (a Temporal workflow) gives its agents Runnable::run.
        java.util.concurrent.Executor here = Runnable::run;
        Thread caller = Thread.currentThread();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        Provider onThread = new Provider() {
            private final ScriptedProvider answers = provider(complete("cold"), complete("warm"), complete("merged"));

            @Override
            public String name() {
                return "on-thread";
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                threads.add(Thread.currentThread());
                return answers.stream(request);
            }
        };
        AgentTool both = AgentTool.parallel("both", "Asks both", List.of(
                AgentTool.of("north", "North", agent(onThread).executor(here).build()),
                AgentTool.of("south", "South", agent(onThread).executor(here).build())),
                AgentTool.of("merge", "Merges", agent(onThread).executor(here).build()), 2);
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("both", "weather?"), complete("done")), both).executor(here)
                .listener(event -> {
                    threads.add(Thread.currentThread());
                    heard.add(event);
                }).build();

        assertThat(lead.runBlocking("go").result()).isEqualTo("done");
        assertThat(heard).filteredOn(LoopEvent.SubAgentEvent.class::isInstance).hasSizeGreaterThan(6);
        assertThat(threads).hasSizeGreaterThan(10).containsOnly(caller);
        // one after another: north's run ended before south's began, and merge came last
        assertThat(heard).filteredOn(e -> e instanceof LoopEvent.SubAgentEvent s && (s.innermost() instanceof LoopEvent.LoopStart
                        || s.innermost() instanceof LoopEvent.LoopEnd))
                .map(e -> ((LoopEvent.SubAgentEvent) e).agent() + ":" + ((LoopEvent.SubAgentEvent) e).innermost().type())
                .containsExactly("north:loop_start", "north:loop_end", "south:loop_start", "south:loop_end",
                        "merge:loop_start", "merge:loop_end");
    }

    @Test
    void aFailingBranchCancelsTheOthersModelRequests() throws Exception {
        HangingProvider hanging = new HangingProvider();
        AgentTool both = AgentTool.parallel("both", "Both", List.of(
                AgentTool.of("slow", "Hangs", agent(hanging).build()),
                // fails only once the slow branch's model request is under way: there is a request to cancel
                AgentTool.of("broken", "Fails", agent(after(hanging.started, provider("no call"))).maxIterations(1).build())),
                null, 2);
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("both", "x"), complete("gave up")), both).listener(heard::add).build();

        assertThat(lead.run("go").await().result()).isEqualTo("gave up");
        assertThat(hanging.cancelled.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(heard).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(LoopEvent.ToolResultError.class,
                error -> assertThat(error.error()).contains("broken ended max_iterations")));
    }

    /** {@code provider}, its requests sent once {@code latch} is open (a hang guard of 30 s). */
    private static Provider after(CountDownLatch latch, Provider provider) {
        return new Provider() {
            @Override
            public String name() {
                return provider.name();
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                try {
                    if (!latch.await(30, TimeUnit.SECONDS)) {
                        throw new AssertionError("the latch never opened");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ProviderException(ProviderException.Kind.CANCELLED, "cancelled", 0, null, null);
                }
                return provider.stream(request);
            }
        };
    }

    /** {@code provider}, counting the model calls under way at once. */
    private static Provider counting(Provider provider, java.util.concurrent.atomic.AtomicInteger active,
                                     java.util.concurrent.atomic.AtomicInteger most) {
        return new Provider() {
            @Override
            public String name() {
                return provider.name();
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                most.accumulateAndGet(active.incrementAndGet(), Math::max);
                try {
                    Thread.sleep(50);   // widens the window in which a second branch would overlap
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ChatStream inner = provider.stream(request);
                return new dev.bellows.provider.ForwardingChatStream(inner) {
                    @Override
                    public void close() {
                        active.decrementAndGet();
                        super.close();
                    }
                };
            }

            @Override
            public void close() {
            }
        };
    }

    private static int indexOf(List<AgentEvent> events, java.util.function.Predicate<AgentEvent> test) {
        for (int i = 0; i < events.size(); i++) {
            if (test.test(events.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such event");
    }

    /** A model whose answer never comes until the call is cancelled. */
    private static final class HangingProvider implements Provider {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch cancelled = new CountDownLatch(1);

        @Override
        public String name() {
            return "hanging";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            started.countDown();
            return new ChatStream() {
                @Override
                public StreamChunk next() throws ProviderException {
                    try {
                        cancelled.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new ProviderException(ProviderException.Kind.CANCELLED, "cancelled", 0, null, null);
                }

                @Override
                public Optional<String> finishReason() {
                    return Optional.empty();
                }

                @Override
                public Optional<TokenUsage> usage() {
                    return Optional.empty();
                }

                @Override
                public void cancel() {
                    cancelled.countDown();
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public void close() {
        }
    }
}
