package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.NO_WAIT;
import static dev.bellows.agent.DefaultAgentTest.READ_FILE;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.json;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static dev.bellows.agent.DefaultAgentTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ForwardingChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The seam around the loop: run, model and tool interceptors, tool effects, deferred calls and resume. */
class InterceptorsTest {

    record Days(String city, List<Integer> days) {
    }

    /** Counts its calls; its arguments are a record, so TypedTool checks them too. */
    static final class Counted {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final Tool tool;

        Counted(String name) {
            tool = TypedTool.of(name, "Writes " + name, DefaultAgentTest.PathArguments.class, (context, arguments) -> {
                calls.add(arguments.path());
                return ToolResult.of(name + " wrote " + arguments.path());
            });
        }
    }

    static String write(String tool, String path) {
        return call(tool, "{\"path\": \"" + path + "\"}");
    }

    static List<LoopEvent> loopEvents(AgentRun run) {
        return DefaultAgentTest.loopEvents(DefaultAgentTest.events(run));
    }

    @Nested
    class ModelInterceptors {

        @Test
        void they_run_in_order_around_each_request_and_may_add_a_header_the_provider_gets() {
            List<String> seen = new CopyOnWriteArrayList<>();
            ScriptedProvider provider = provider(read("a.txt"), complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, READ_FILE)
                    .modelInterceptor(chain -> {
                        seen.add("outer " + chain.run().iteration() + " " + chain.attempt());
                        ChatStream stream = chain.proceed(chain.request().toBuilder()
                                .header("traceparent", "00-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01").build());
                        seen.add("outer back");
                        return stream;
                    })
                    .modelInterceptor(chain -> {
                        seen.add("inner " + chain.request().headers().keySet() + " " + chain.providerName());
                        return chain.proceed(chain.request());
                    })
                    .build();

            assertThat(agent.run("go").await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
            assertThat(seen).containsExactly("outer 1 1", "inner [traceparent] scripted", "outer back",
                    "outer 2 1", "inner [traceparent] scripted", "outer back");
            assertThat(provider.requests()).allSatisfy(request ->
                    assertThat(request.headers()).containsOnlyKeys("traceparent"));
            assertThat(provider.requests().getFirst().toString()).contains("headers=[traceparent] (values redacted)")
                    .doesNotContain("1111");
        }

        @Test
        void one_that_records_the_answer_reads_it_with_the_loops_stream_options() {
            ScriptedProvider provider = provider("<think>17 * 23</think>" + complete("391"));
            List<String> recorded = new CopyOnWriteArrayList<>();
            DefaultAgent agent = DefaultAgentTest.agent(provider).modelInterceptor(chain -> {
                dev.bellows.stream.StreamProcessor reader = new dev.bellows.stream.StreamProcessor(
                        chain.streamOptions().orElseThrow(), event -> { });
                return new dev.bellows.provider.ForwardingChatStream(chain.proceed(chain.request())) {
                    @Override
                    public dev.bellows.stream.StreamChunk next() throws dev.bellows.provider.ProviderException {
                        dev.bellows.stream.StreamChunk chunk = super.next();
                        if (chunk != null) {
                            reader.accept(chunk);
                        } else {
                            dev.bellows.event.StreamEvent.Complete read = reader.finish();
                            recorded.add(chain.providerName() + ": " + read.thinking().getFirst().content() + " | "
                                    + read.toolCalls().size() + " call | text \"" + read.message().strip() + "\"");
                        }
                        return chunk;
                    }
                };
            }).build();

            assertThat(agent.run("What is 17 * 23?").await().result()).isEqualTo("391");
            assertThat(recorded).containsExactly("scripted: 17 * 23 | 1 call | text \"\"");
        }

        @Test
        void each_attempt_of_a_retried_request_goes_through_them() {
            ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                    .turn(MockTurn.status(503).errorMessage("busy"))
                    .turn(MockTurn.content(complete("done")))
                    .build());
            List<Integer> attempts = new CopyOnWriteArrayList<>();
            DefaultAgent agent = DefaultAgentTest.agent(provider)
                    .modelInterceptor(chain -> {
                        attempts.add(chain.attempt());
                        return chain.proceed(chain.request());
                    })
                    .build();

            AgentRun run = agent.run("go");
            assertThat(loopEvents(run)).extracting(AgentEvent::type)
                    .containsExactly("loop_start", "iteration_start", "retry", "tool_result", "loop_end");
            assertThat(run.await().result()).isEqualTo("done");
            assertThat(attempts).containsExactly(1, 2);
        }

        @Test
        void one_may_answer_without_the_provider_and_another_may_watch_the_stream() {
            ScriptedProvider never = provider();
            ScriptedProvider cache = provider(complete("from the cache"));
            List<String> watched = new CopyOnWriteArrayList<>();
            DefaultAgent agent = DefaultAgentTest.agent(never)
                    .modelInterceptor(chain -> {
                        ChatStream stream = chain.proceed(chain.request());
                        return new ChatStream() {
                            @Override
                            public StreamChunk next() throws ProviderException {
                                StreamChunk chunk = stream.next();
                                watched.add(chunk == null ? "end " + stream.finishReason().orElse("?") : "chunk");
                                return chunk;
                            }

                            @Override
                            public Optional<String> finishReason() {
                                return stream.finishReason();
                            }

                            @Override
                            public Optional<TokenUsage> usage() {
                                return stream.usage();
                            }

                            @Override
                            public void cancel() {
                                stream.cancel();
                            }

                            @Override
                            public void close() {
                                stream.close();
                            }
                        };
                    })
                    .modelInterceptor(chain -> cache.stream(chain.request()))
                    .build();

            assertThat(agent.run("go").await().result()).isEqualTo("from the cache");
            assertThat(never.requests()).isEmpty();
            assertThat(watched).contains("chunk").last().isEqualTo("end stop");
        }

        @Test
        void one_that_throws_or_answers_null_ends_the_run_naming_it() {
            class Broken implements ModelInterceptor {
                @Override
                public ChatStream intercept(Chain chain) {
                    throw new IllegalStateException("no tracer");
                }
            }
            ScriptedProvider provider = provider(complete("done"));
            AgentResult broken = DefaultAgentTest.agent(provider).modelInterceptor(new Broken()).build().run("go").await();
            assertThat(broken.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(broken.result()).isEqualTo("model interceptor " + Broken.class.getName()
                    + " failed: IllegalStateException: no tracer");
            assertThat(provider.requests()).isEmpty();

            AgentResult nothing = DefaultAgentTest.agent(provider).modelInterceptor(chain -> null).build()
                    .run("go").await();
            assertThat(nothing.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(nothing.result()).startsWith("model interceptor ").endsWith(" returned null");
        }

        @Test
        void a_stream_of_its_own_that_throws_ends_the_run_naming_it() {
            ScriptedProvider provider = provider(complete("done"));
            AgentResult result = DefaultAgentTest.agent(provider)
                    .modelInterceptor(chain -> new ChatStream() {
                        @Override
                        public StreamChunk next() {
                            throw new UnsupportedOperationException("half written");
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
                        }

                        @Override
                        public void close() {
                        }
                    })
                    .build().run("go").await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(result.result()).startsWith("model interceptor ").contains("InterceptorsTest")
                    .endsWith("failed: UnsupportedOperationException: half written");
        }

        @Test
        void a_provider_failure_thrown_by_one_is_retried_as_the_providers_own() {
            ScriptedProvider provider = provider(complete("done"));
            AtomicInteger calls = new AtomicInteger();
            AgentResult result = DefaultAgentTest.agent(provider)
                    .modelInterceptor(chain -> {
                        if (calls.incrementAndGet() == 1) {
                            throw new ProviderException(ProviderException.Kind.RATE_LIMITED, "slow down");
                        }
                        return chain.proceed(chain.request());
                    })
                    .build().run("go").await();
            assertThat(result.result()).isEqualTo("done");
            assertThat(calls).hasValue(2);
        }
    }

    /** OkHttp's application and network interceptors: around the whole call, and around each attempt. */
    @Nested
    class ModelCallInterceptors {

        @Test
        void one_around_the_whole_call_sees_it_once_outside_the_retries_which_each_attempt_sees() {
            ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                    .turn(MockTurn.status(503).errorMessage("busy"))
                    .turn(MockTurn.content(call("read_file", "{\"path\": \"a.txt\"}")))
                    .turn(MockTurn.content(complete("done")))
                    .build());
            List<String> seen = new CopyOnWriteArrayList<>();
            DefaultAgent agent = DefaultAgentTest.agent(provider, DefaultAgentTest.READ_FILE)
                    .modelInterceptor(chain -> {
                        seen.add("attempt " + chain.attempt());
                        return chain.proceed(chain.request());
                    })
                    .modelCallInterceptor(chain -> {
                        seen.add("call " + chain.attempt() + " iteration " + chain.run().iteration());
                        return new ForwardingChatStream(chain.proceed(chain.request())) {
                            @Override
                            public StreamChunk next() throws ProviderException {
                                StreamChunk chunk = super.next();
                                if (chunk instanceof StreamChunk.Restart restart) {
                                    seen.add("restart " + restart.attempt());
                                }
                                return chunk;
                            }
                        };
                    })
                    .build();

            AgentResult result = agent.run("go").await();

            assertThat(result.result()).isEqualTo("done");
            // the retry is announced in the call's stream before its attempt is made
            assertThat(seen).containsExactly("call 0 iteration 1", "attempt 1", "restart 2", "attempt 2",
                    "call 0 iteration 2", "attempt 1");
        }

        @Test
        void a_provider_failure_one_throws_is_not_retried() {
            ScriptedProvider provider = provider(complete("done"));
            AtomicInteger calls = new AtomicInteger();
            AgentResult result = DefaultAgentTest.agent(provider)
                    .modelCallInterceptor(chain -> {
                        calls.incrementAndGet();
                        throw new ProviderException(ProviderException.Kind.RATE_LIMITED, "over budget");
                    })
                    .build().run("go").await();

            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR, "over budget"));
            assertThat(calls).hasValue(1);
            assertThat(provider.requests()).isEmpty();
        }
    }

    @Nested
    class RunInterceptors {

        @Test
        void they_wrap_the_whole_run_and_share_its_state_with_the_others() {
            List<String> seen = new CopyOnWriteArrayList<>();
            ScriptedProvider provider = provider(read("a.txt"), complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, READ_FILE)
                    .name("reader")
                    .runInterceptor(chain -> {
                        chain.run().attributes().put("span", "run-span");
                        seen.add("start " + chain.run().agentName() + " " + chain.run().task() + " "
                                + chain.run().iteration() + " " + chain.run().sessionName().isPresent());
                        AgentResult result = chain.proceed();
                        seen.add("end " + result.reason().wireName() + " " + chain.run().iteration());
                        return result;
                    })
                    .modelInterceptor(chain -> {
                        seen.add("model in " + chain.run().attributes().get("span"));
                        return chain.proceed(chain.request());
                    })
                    .toolInterceptor(chain -> {
                        seen.add("tool in " + chain.run().attributes().get("span") + " " + chain.callId());
                        return chain.proceed();
                    })
                    .build();

            AgentRun run = agent.run("read a");
            List<LoopEvent> events = loopEvents(run);
            assertThat(run.await().result()).isEqualTo("done");
            assertThat(seen).containsExactly("start reader read a 0 false", "model in run-span",
                    "tool in run-span call_1_1", "model in run-span", "tool in run-span call_2_1",
                    "end task_completion 2");
            assertThat(events.getFirst()).isInstanceOf(LoopEvent.LoopStart.class);
            assertThat(events.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "done"));
        }

        @Test
        void one_may_refuse_a_run_and_one_that_throws_ends_it_naming_it() {
            ScriptedProvider provider = provider(complete("done"));
            AgentRun refused = DefaultAgentTest.agent(provider)
                    .runInterceptor(chain -> new AgentResult(LoopEndReason.ERROR, "not on a Sunday"))
                    .build().run("go");
            assertThat(loopEvents(refused)).containsExactly(new LoopEvent.LoopStart("go"),
                    new LoopEvent.LoopEnd(LoopEndReason.ERROR, "not on a Sunday"));
            assertThat(provider.requests()).isEmpty();

            class Failing implements RunInterceptor {
                @Override
                public AgentResult intercept(Chain chain) {
                    chain.proceed();
                    throw new IllegalArgumentException("lost the span");
                }
            }
            AgentResult failed = DefaultAgentTest.agent(provider).runInterceptor(new Failing()).build().run("go").await();
            assertThat(failed).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                    "run interceptor " + Failing.class.getName() + " failed: IllegalArgumentException: lost the span"));

            AgentResult twice = DefaultAgentTest.agent(provider(complete("a"))).runInterceptor(chain -> {
                chain.proceed();
                return chain.proceed();
            }).build().run("go").await();
            assertThat(twice.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(twice.result()).contains("proceed() was called already");
        }
    }

    @Nested
    class ToolInterceptors {

        @Test
        void they_see_checked_arguments_and_ids_and_may_change_the_arguments() {
            List<String> days = new CopyOnWriteArrayList<>();
            Tool forecast = TypedTool.of("forecast", "Weather", Days.class, (context, arguments) -> {
                days.add(arguments.city() + arguments.days());
                return ToolResult.of("ok");
            });
            List<String> seen = new CopyOnWriteArrayList<>();
            ScriptedProvider provider = provider(
                    call("forecast", "{\"city\": \"Oslo\", \"days\": \"3\"}") + call("forecast", "{\"city\": \"Rome\", \"days\": [1]}")
                            + call("forecast", "{\"city\": \"Bern\", \"days\": [2]}"),
                    complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, forecast)
                    .toolInterceptor(chain -> {
                        if (!chain.tool().name().equals("forecast")) {
                            return chain.proceed();
                        }
                        seen.add(chain.callId() + " " + chain.call().arguments() + " " + chain.tool().name());
                        return switch (chain.call().arguments().get("city").asString()) {
                            case "Rome" -> chain.proceed(json("{\"city\": \"Milan\", \"days\": \"4\"}"));
                            case "Bern" -> chain.proceed(json("{\"city\": \"Bern\", \"days\": \"never\"}"));
                            default -> chain.proceed();
                        };
                    })
                    .build();

            AgentRun run = agent.run("weather");
            List<LoopEvent> events = loopEvents(run);
            assertThat(run.await().result()).isEqualTo("done");
            assertThat(seen).containsExactly("call_1_1 {\"city\":\"Oslo\",\"days\":[3]} forecast",
                    "call_1_2 {\"city\":\"Rome\",\"days\":[1]} forecast", "call_1_3 {\"city\":\"Bern\",\"days\":[2]} forecast");
            assertThat(days).containsExactly("Oslo[3]", "Milan[4]");
            assertThat(events).filteredOn(LoopEvent.ToolResultError.class::isInstance).singleElement()
                    .satisfies(e -> assertThat(((LoopEvent.ToolResultError) e).error()).contains("\"days\""));
            String observation = provider.requests().get(1).messages().getLast().content();
            assertThat(observation).contains("invalid arguments for forecast");
        }

        @Test
        void unknown_tools_undecodable_calls_and_bad_arguments_never_reach_them() {
            List<String> seen = new CopyOnWriteArrayList<>();
            ScriptedProvider provider = provider(
                    read("a.txt") + call("nope", "{}") + "<tool>not json</tool>" + call("read_file", "{\"file\": 1}"),
                    complete("done"));
            DefaultAgentTest.agent(provider, READ_FILE)
                    .maxConsecutiveErrors(10)
                    .toolInterceptor(chain -> {
                        seen.add(chain.callId());
                        return chain.proceed();
                    })
                    .build().run("go").await();
            assertThat(seen).containsExactly("call_1_1", "call_2_1");       // the second: task_completion
            assertThat(provider.requests().get(1).messages().getLast().content())
                    .contains("contents of a.txt", "unknown tool \"nope\"", "invalid arguments for read_file");
        }

        @Test
        void one_may_answer_for_the_tool_and_its_effect_counts() {
            Counted files = new Counted("write_file");
            ScriptedProvider provider = provider(write("write_file", "a.txt") + complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, files.tool)
                    .toolInterceptor(chain -> chain.tool().name().equals("write_file")
                            ? chain.respond(ToolResult.of("dry run: not written")) : chain.proceed())
                    .build();
            AgentRun run = agent.run("go");
            assertThat(loopEvents(run)).contains(new LoopEvent.ToolResultEvent("local", "write_file",
                    json("{\"path\": \"a.txt\"}"), "dry run: not written", "call_1_1"));
            assertThat(run.await().result()).isEqualTo("done");
            assertThat(files.calls).isEmpty();
        }

        @Test
        void one_that_throws_ends_the_run_naming_it() {
            class Policy implements ToolInterceptor {
                @Override
                public ToolCallOutcome intercept(Chain chain) {
                    throw new SecurityException("no writes today");
                }
            }
            Counted files = new Counted("write_file");
            AgentResult result = DefaultAgentTest.agent(provider(write("write_file", "a.txt"), complete("done")), files.tool)
                    .toolInterceptor(new Policy()).build().run("go").await();
            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                    "tool interceptor " + Policy.class.getName() + " failed: SecurityException: no writes today"));
            assertThat(files.calls).isEmpty();
        }

        @Test
        void parallel_safe_calls_run_at_once_unless_an_interceptor_asks_for_the_loops_thread() throws Exception {
            CyclicBarrier both = new CyclicBarrier(2);
            Set<Thread> threads = ConcurrentHashMap.newKeySet();
            Tool meet = TypedTool.builder("meet", DefaultAgentTest.PathArguments.class).description("Meets")
                    .parallelSafe(true)
                    .handler((context, arguments) -> {
                        threads.add(Thread.currentThread());
                        if (arguments.path().startsWith("p")) {
                            both.await(10, TimeUnit.SECONDS);      // only returns when both run at once
                        }
                        return ToolResult.of("met");
                    }).build();
            ToolInterceptor watching = chain -> chain.proceed();
            AgentResult parallel = DefaultAgentTest.agent(provider(write("meet", "p1") + write("meet", "p2"),
                    complete("done")), meet).toolInterceptor(watching).build().run("go").await();
            assertThat(parallel.result()).isEqualTo("done");

            threads.clear();
            List<Thread> loopThread = new ArrayList<>();
            ToolInterceptor sequential = new ToolInterceptor() {
                @Override
                public ToolCallOutcome intercept(Chain chain) {
                    return chain.proceed();
                }

                @Override
                public boolean allowsParallelCalls() {
                    return false;
                }
            };
            DefaultAgent agent = DefaultAgentTest.agent(provider(write("meet", "s1") + write("meet", "s2"),
                    complete("done")), meet).toolInterceptor(sequential).toolInterceptor(watching)
                    .runInterceptor(chain -> {
                        loopThread.add(Thread.currentThread());
                        return chain.proceed();
                    }).build();
            assertThat(agent.runBlocking("go").result()).isEqualTo("done");
            assertThat(threads).containsExactly(loopThread.getFirst());
        }

        @Test
        void native_calls_are_named_by_the_providers_ids() {
            List<String> ids = new CopyOnWriteArrayList<>();
            ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                    .turn(MockTurn.toolCalls(new MockToolCall("toolu_A", "read_file", "{\"path\": \"a\"}"),
                            new MockToolCall("toolu_A", "read_file", "{\"path\": \"b\"}")))
                    .turn(MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"done\"}")))
                    .build());
            AgentResult result = DefaultAgentTest.agent(provider, READ_FILE).toolMode(ToolMode.NATIVE)
                    .toolInterceptor(chain -> {
                        ids.add(chain.callId());
                        return chain.proceed();
                    }).build().run("go").await();
            assertThat(result.result()).isEqualTo("done");
            // the second call's id repeats the first's: it is named by its place instead
            assertThat(ids).containsExactly("toolu_A", "call_1_2", "call_1");
        }
    }

    @Nested
    class Effects {

        record Question(String text) {
        }

        @Test
        void a_tools_result_says_what_it_does_to_the_loop() {
            Tool ask = TypedTool.of("ask_boss", "Asks the boss", Question.class, (context, arguments) ->
                    new ToolResult<>("asked", List.of(), new ToolEffect.EndRun(LoopEndReason.ASK_QUESTION,
                            arguments.text(), List.of("yes", "no"))));
            Plan plan = new Plan(List.of(new PlanStep("Ask", PlanStatus.IN_PROGRESS)));
            Tool planner = TypedTool.of("plan_it", "Plans", DefaultAgentTest.NoArguments.class,
                    (context, arguments) -> ToolResult.replacingPlan(plan));
            ScriptedProvider provider = provider(call("plan_it", "{}"), call("ask_boss", "{\"text\": \"Raise?\"}"));
            AgentRun run = DefaultAgentTest.agent(provider, ask, planner).build().run("go");
            assertThat(loopEvents(run)).contains(new LoopEvent.PlanUpdate(plan.steps()));
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.ASK_QUESTION, "Raise?"));
        }

        @Test
        void an_end_needs_one_of_the_models_own_reasons() {
            assertThatThrownBy(() -> ToolResult.endingRun(LoopEndReason.ERROR, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not error");
        }
    }

    @Nested
    class DeferredCalls {

        static final ToolInterceptor CLIENT_SIDE = chain -> chain.tool().name().equals("render_chart")
                ? chain.defer() : chain.proceed();

        @Test
        void a_deferred_call_stops_the_run_and_a_resume_carries_it_on_without_asking_the_model_again() {
            Counted charts = new Counted("render_chart");
            ScriptedProvider provider = provider(
                    read("a.txt") + write("render_chart", "c.png") + read("b.txt"),
                    complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, READ_FILE, charts.tool).toolInterceptor(CLIENT_SIDE)
                    .build();
            Session session = new Session();

            AgentRun stopped = agent.run("draw", session);
            List<LoopEvent> events = loopEvents(stopped);
            AgentResult result = stopped.await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
            assertThat(result.waiting()).containsExactly(new WaitingCall("call_1_2",
                    new dev.bellows.tool.ToolCall("local", "render_chart", json("{\"path\": \"c.png\"}")),
                    WaitingCall.Kind.EXTERNAL));
            assertThat(session.waiting()).isEqualTo(result.waiting());
            assertThat(events).filteredOn(LoopEvent.ToolResultEvent.class::isInstance).hasSize(1);  // a.txt only
            assertThat(events).noneMatch(LoopEvent.ApprovalRequired.class::isInstance);
            assertThat(charts.calls).isEmpty();
            assertThat(provider.requests()).hasSize(1);
            assertThat(session.memory().turns()).isEmpty();
            assertThatThrownBy(() -> agent.run("something else", session))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("call_1_2");

            AgentRun resumed = agent.resume(session, List.of(Decision.respond("call_1_2", "shown to the user")));
            List<LoopEvent> later = loopEvents(resumed);
            assertThat(resumed.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
            assertThat(later).extracting(AgentEvent::type).containsExactly("loop_start", "tool_result", "tool_result",
                    "iteration_start", "tool_result", "loop_end");
            assertThat(later.getFirst()).isEqualTo(new LoopEvent.LoopStart("draw"));
            assertThat(later).contains(new LoopEvent.IterationStart(2));
            assertThat(provider.requests()).hasSize(2);
            String observation = provider.requests().get(1).messages().getLast().content();
            assertThat(observation).contains("contents of a.txt", "shown to the user", "contents of b.txt");
            assertThat(session.waiting()).isEmpty();
            assertThat(session.memory().turns()).hasSize(2);
            assertThat(session.memory().turns().getFirst()).extracting(Message::role).containsExactly(
                    dev.bellows.provider.Role.USER, dev.bellows.provider.Role.ASSISTANT, dev.bellows.provider.Role.USER);
        }

        @Test
        void a_resume_that_does_not_fit_changes_nothing() {
            Counted charts = new Counted("render_chart");
            ScriptedProvider provider = provider(write("render_chart", "c.png") + write("render_chart", "d.png"),
                    complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, charts.tool).toolInterceptor(CLIENT_SIDE).build();
            Session session = new Session();
            assertThat(agent.run("draw", session).await().waiting()).extracting(WaitingCall::id)
                    .containsExactly("call_1_1");       // the second is held behind the first

            assertThatThrownBy(() -> agent.resume(session, List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(
                            "no decision for waiting call call_1_1: every waiting call needs one");
            assertThatThrownBy(() -> agent.resume(session, List.of(Decision.respond("call_9_9", "x"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(
                            "no call waits with id call_9_9; the waiting calls: call_1_1");
            assertThatThrownBy(() -> agent.resume(session, List.of(Decision.respond("call_1_1", "x"),
                    Decision.deny("call_1_1", "no"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(
                            "two decisions for call call_1_1: give one per waiting call");
            assertThatThrownBy(() -> agent.resume(session, List.of(Decision.approve("call_1_1"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("carried out outside the run");
            assertThat(session.waiting()).extracting(WaitingCall::id).containsExactly("call_1_1");
            assertThat(provider.requests()).hasSize(1);

            // the held call reaches the interceptor on resume, and is deferred in its turn
            AgentResult again = agent.resume(session, List.of(Decision.deny("call_1_1", "no charts"))).await();
            assertThat(again.waiting()).extracting(WaitingCall::id).containsExactly("call_1_2");
            AgentResult done = agent.resume(session, List.of(Decision.respond("call_1_2", "drawn"))).await();
            assertThat(done.result()).isEqualTo("done");
            assertThat(provider.requests().get(1).messages().getLast().content())
                    .contains("the user denied this call (it did not run): no charts", "drawn");
            assertThatThrownBy(() -> agent.resume(session, List.of()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("nothing to resume");
        }
    }
}
