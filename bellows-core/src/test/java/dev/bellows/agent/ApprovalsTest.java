package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.READ_FILE;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.json;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static dev.bellows.agent.DefaultAgentTest.read;
import static dev.bellows.agent.InterceptorsTest.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.internal.ToolPattern;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Approvals: which calls wait, the run that stops, the resume that decides, the handler that asks. */
class ApprovalsTest {

    /** What happened, in order, across tools and the handler. */
    final List<String> happened = new CopyOnWriteArrayList<>();

    final Tool writeFile = TypedTool.of("write_file", "Writes a file", DefaultAgentTest.PathArguments.class,
            (context, arguments) -> {
                happened.add("write " + arguments.path());
                return ToolResult.of("wrote " + arguments.path());
            });

    static ToolCall local(String tool, String arguments) {
        return new ToolCall("local", tool, json(arguments));
    }

    @Nested
    class Patterns {

        @Test
        void serverSlashToolWithStarsMatchingAnyRun() {
            Approvals approvals = new Approvals(List.of(ToolPattern.of("files/*"), ToolPattern.of("*/write_*")),
                    List.of());
            assertThat(approvals.test(new ToolCall("files", "read", json("{}")))).isTrue();
            assertThat(approvals.test(local("write_file", "{}"))).isTrue();
            assertThat(approvals.test(local("read_file", "{}"))).isFalse();
            assertThat(approvals.test(new ToolCall("filesystem", "read", json("{}")))).isFalse();

            Approvals everything = new Approvals(List.of(ToolPattern.of("*")), List.of());
            assertThat(everything.test(new ToolCall("any.server", "any tool", json("{}")))).isTrue();
            for (String builtin : List.of("task_completion", "ask_question", "converse", "update_plan")) {
                assertThat(everything.test(local(builtin, "{}"))).as(builtin).isFalse();
            }
            assertThat(everything.test(new ToolCall("mcp", "task_completion", json("{}")))).as("not the built-in").isTrue();
        }

        @Test
        void aPatternIsServerSlashToolOrAStar() {
            for (String bad : List.of("write_file", "", " ", "/write_file")) {
                assertThatThrownBy(() -> ToolPattern.of(bad)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("SERVER/TOOL");
            }
            assertThat(ToolPattern.of("a.b/c+d").matches("a.b", "c+d")).isTrue();   // regex characters are plain
            assertThat(ToolPattern.of("a.b/c+d").matches("axb", "cd")).isFalse();
        }
    }

    @Nested
    class StoppingAndResuming {

        @Test
        void the_run_stops_at_the_first_call_that_needs_approval_and_the_resume_decides_each() {
            ScriptedProvider provider = provider(
                    read("a.txt") + write("write_file", "x.txt") + read("b.txt") + write("write_file", "y.txt"),
                    complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, READ_FILE, writeFile)
                    .requireApproval("local/write_file").build();
            Session session = new Session();

            AgentRun stopped = agent.run("write them", session);
            List<LoopEvent> events = DefaultAgentTest.loopEvents(DefaultAgentTest.events(stopped));
            assertThat(events.subList(events.size() - 4, events.size())).containsExactly(
                    new LoopEvent.ToolResultEvent("local", "read_file", json("{\"path\": \"a.txt\"}"), "contents of a.txt",
                            "call_1_1"),
                    new LoopEvent.ApprovalRequired("call_1_2", "local", "write_file", json("{\"path\": \"x.txt\"}")),
                    new LoopEvent.ApprovalRequired("call_1_4", "local", "write_file", json("{\"path\": \"y.txt\"}")),
                    new LoopEvent.LoopEnd(LoopEndReason.INTERRUPTED,
                            "waiting for decisions on tool calls call_1_2, call_1_4"));
            AgentResult result = stopped.await();
            assertThat(result.waiting()).extracting(WaitingCall::id, WaitingCall::kind).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("call_1_2", WaitingCall.Kind.APPROVAL),
                    org.assertj.core.groups.Tuple.tuple("call_1_4", WaitingCall.Kind.APPROVAL));
            assertThat(happened).isEmpty();
            assertThat(provider.requests()).hasSize(1);

            AgentRun resumed = agent.resume(session, List.of(Decision.approve("call_1_2"),
                    Decision.deny("call_1_4", "use the staging folder")));
            List<AgentEvent> later = DefaultAgentTest.events(resumed);
            assertThat(resumed.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
            assertThat(DefaultAgentTest.types(later)).startsWith("loop_start", "approval", "approval", "tool_result",
                    "tool_result", "tool_result_error", "iteration_start");
            assertThat(DefaultAgentTest.loopEvents(later)).contains(
                    new LoopEvent.Approval("call_1_2", true, ""),
                    new LoopEvent.Approval("call_1_4", false, "use the staging folder"),
                    new LoopEvent.ToolResultError("local", "write_file",
                            "the user denied this call (it did not run): use the staging folder", "call_1_4"));
            assertThat(happened).containsExactly("write x.txt");
            assertThat(provider.requests()).hasSize(2);
            String observation = provider.requests().get(1).messages().getLast().content();
            assertThat(observation).contains("contents of a.txt", "wrote x.txt", "contents of b.txt",
                    "the user denied this call (it did not run): use the staging folder");
            // the conversation reads as if the answer's calls had run at once
            assertThat(session.memory().turns().getFirst()).extracting(Message::role)
                    .containsExactly(Role.USER, Role.ASSISTANT, Role.USER);
        }

        @Test
        void an_approval_may_edit_the_arguments_which_are_checked_first() {
            ScriptedProvider provider = provider(write("write_file", "/etc/passwd"), complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, writeFile)
                    .requireApproval(call -> call.arguments().path("path").asString().startsWith("/etc"))
                    .toolInterceptor(chain -> {
                        happened.add("interceptor sees " + chain.call().arguments().get("path").asString());
                        return chain.proceed();
                    })
                    .build();
            Session session = new Session();
            assertThat(agent.run("write", session).await().reason()).isEqualTo(LoopEndReason.INTERRUPTED);
            assertThat(happened).isEmpty();         // a call that waits reaches no interceptor

            assertThatThrownBy(() -> agent.resume(session, List.of(Decision.approve("call_1_1", json("{\"file\": 1}")))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("the edited arguments of call call_1_1 do not match the tool's schema:");
            assertThat(session.waiting()).hasSize(1);

            agent.resume(session, List.of(Decision.approve("call_1_1", json("{\"path\": \"/tmp/safe\"}")))).await();
            assertThat(happened).containsExactly("interceptor sees /tmp/safe", "write /tmp/safe");
        }

        @Test
        void an_approval_of_a_tool_the_resuming_agent_lacks_is_refused_before_anything_is_used_up() {
            ScriptedProvider provider = provider(read("a.txt") + write("write_file", "x"), complete("done"));
            Session session = new Session();
            DefaultAgent began = DefaultAgentTest.agent(provider, READ_FILE, writeFile)
                    .requireApproval("*").build();
            assertThat(began.run("write", session).await().waiting()).extracting(WaitingCall::id)
                    .containsExactly("call_1_1", "call_1_2");
            DefaultAgent without = DefaultAgentTest.agent(provider, READ_FILE).requireApproval("*").build();

            assertThatThrownBy(() -> without.resume(session, List.of(Decision.approve("call_1_1"),
                    Decision.approve("call_1_2"))))
                    .isInstanceOfSatisfying(MissingToolException.class, e -> {
                        assertThat(e.callId()).isEqualTo("call_1_2");
                        assertThat(e.serverName()).isEqualTo("local");
                        assertThat(e.toolName()).isEqualTo("write_file");
                    })
                    .hasMessageContaining("local/write_file");
            assertThatThrownBy(() -> without.machine(session).checkDecisions(List.of(Decision.approve("call_1_1"),
                    Decision.approve("call_1_2")))).isInstanceOf(MissingToolException.class);
            assertThat(session.waiting()).hasSize(2);
            assertThat(provider.requests()).hasSize(1);

            // a denial needs no tool
            AgentResult denied = without.resume(session, List.of(Decision.approve("call_1_1"),
                    Decision.deny("call_1_2", "not now"))).await();
            assertThat(denied.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            assertThat(happened).isEmpty();
            assertThat(provider.requests().get(1).messages().getLast().content())
                    .contains("contents of a.txt", "the user denied this call (it did not run): not now");
        }

        @Test
        void the_built_in_tools_never_wait_and_a_new_task_waits_for_the_resume() {
            ScriptedProvider provider = provider(write("write_file", "x"), complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, writeFile).requireApproval("*").build();
            Session session = new Session();
            agent.run("write", session).await();
            assertThatThrownBy(() -> agent.run("something else", session)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("a run of this session waits for decisions on its tool calls (call_1_1): resume it"
                            + " (DefaultAgent.resume) before giving it a new task");
            AgentResult done = agent.resume(session, List.of(Decision.approve("call_1_1"))).await();
            assertThat(done.result()).isEqualTo("done");        // task_completion did not wait
        }

        @Test
        void native_calls_wait_under_the_providers_ids_and_a_denial_is_their_tool_result() {
            ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                    .turn(MockTurn.toolCalls(new MockToolCall("toolu_01", "write_file", "{\"path\": \"x\"}")))
                    .turn(MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"done\"}")))
                    .build());
            DefaultAgent agent = DefaultAgentTest.agent(provider, writeFile).toolMode(ToolMode.NATIVE)
                    .requireApproval("local/write_file").build();
            Session session = new Session();
            assertThat(agent.run("write", session).await().waiting()).extracting(WaitingCall::id)
                    .containsExactly("toolu_01");
            assertThat(agent.resume(session, List.of(Decision.deny("toolu_01", "not now"))).await().result())
                    .isEqualTo("done");
            Message answer = provider.requests().get(1).messages().getLast();
            assertThat(answer.role()).isEqualTo(Role.TOOL);
            assertThat(answer.toolCallId()).isEqualTo("toolu_01");
            assertThat(answer.content()).isEqualTo("the user denied this call (it did not run): not now");
            assertThat(happened).isEmpty();
        }
        @Test
        void a_resume_that_fails_after_its_calls_ran_keeps_the_run_waiting_with_their_results() {
            ScriptedProvider provider = provider(write("write_file", "x"), complete("done"));
            Session session = new Session();
            DefaultAgent tags = DefaultAgentTest.agent(provider, writeFile).requireApproval("*/write_file").build();
            assertThat(tags.run("write", session).await().reason()).isEqualTo(LoopEndReason.INTERRUPTED);

            // An agent of another tool mode cannot write the tags answer's observation: the run fails
            // after the call ran, and the session's waiting run keeps what it did.
            DefaultAgent other = DefaultAgentTest.agent(provider, writeFile).toolMode(ToolMode.NATIVE)
                    .requireApproval("*/write_file").build();
            assertThat(other.resume(session, List.of(Decision.approve("call_1_1"))).await().reason())
                    .isEqualTo(LoopEndReason.ERROR);
            assertThat(happened).containsExactly("write x");
            assertThat(session.memory().turns()).isEmpty();
            assertThat(session.suspension()).isNotNull();

            assertThat(tags.resume(session, List.of()).await()).isEqualTo(
                    new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
            assertThat(happened).as("it ran once").containsExactly("write x");
            assertThat(provider.requests()).hasSize(2);
            assertThat(provider.requests().get(1).messages().getLast().content()).contains("wrote x");
        }

        @Test
        void a_resume_cut_short_leaves_a_run_that_waits_with_nothing_to_decide_which_hasWaitingRun_tells()
                throws Exception {
            java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
            Tool slowWrite = TypedTool.of("write_file", "Writes a file", DefaultAgentTest.PathArguments.class,
                    (context, arguments) -> {
                        happened.add("write " + arguments.path());
                        running.countDown();
                        new java.util.concurrent.CountDownLatch(1).await();    // until the run is cancelled
                        return ToolResult.of("wrote " + arguments.path());
                    });
            ScriptedProvider provider = provider(write("write_file", "x"), complete("done"), complete("next done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, slowWrite).requireApproval("*/write_file").build();
            Session session = new Session();
            agent.run("write", session).await();
            AgentRun cut = agent.resume(session, List.of(Decision.approve("call_1_1")));
            assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            cut.cancel();
            assertThat(cut.await().reason()).isEqualTo(LoopEndReason.CANCELLED);

            assertThat(session.waiting()).as("nothing is left to decide").isEmpty();
            assertThat(session.hasWaitingRun()).isTrue();
            assertThatThrownBy(() -> agent.run("next", session)).isInstanceOf(IllegalStateException.class);

            // What a program that serves sessions does before it gives one a task (docs/interceptors.md).
            if (session.hasWaitingRun() && session.waiting().isEmpty()) {
                assertThat(agent.resume(session, List.of()).await())
                        .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
            }
            assertThat(happened).as("started once, never again").containsExactly("write x");
            assertThat(provider.requests().get(1).messages().getLast().content())
                    .contains("the outcome of this call is unknown");
            assertThat(session.hasWaitingRun()).isFalse();
            assertThat(agent.run("next", session).await().result()).isEqualTo("next done");
        }
    }

    @Nested
    class GivingUp {

        @Test
        void a_waiting_run_given_up_runs_nothing_keeps_the_turn_and_sends_nothing() {
            ScriptedProvider provider = provider(write("write_file", "x") + read("b"), complete("next task done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, READ_FILE, writeFile).requireApproval("*/write_file")
                    .build();
            Session session = new Session();
            agent.run("write", session).await();
            AgentResult given = agent.cancelWaiting(session, "the user pressed Ctrl-C");
            assertThat(given.reason()).isEqualTo(LoopEndReason.CANCELLED);
            assertThat(happened).isEmpty();
            assertThat(provider.requests()).hasSize(1);
            assertThat(session.waiting()).isEmpty();
            List<Message> turn = session.memory().turns().getFirst();
            assertThat(turn).extracting(Message::role).containsExactly(Role.USER, Role.ASSISTANT, Role.USER,
                    Role.ASSISTANT);
            assertThat(turn.get(2).content()).contains("the user denied this call (it did not run): the user pressed Ctrl-C",
                    "(not run: cancelled before it started)");
            assertThat(agent.run("next", session).await().result()).isEqualTo("next task done");
            assertThatThrownBy(() -> agent.cancelWaiting(session, "again")).isInstanceOf(IllegalStateException.class);
        }
    }

    @Nested
    class Handler {

        @Test
        void edited_arguments_a_handler_gives_are_checked_before_any_interceptor_sees_them() {
            ScriptedProvider provider = provider(write("write_file", "x"), complete("done"));
            AgentResult result = DefaultAgentTest.agent(provider, writeFile).requireApproval("*")
                    .approvalHandler((call, run) -> Decision.approve(call.id(), json("{\"file\": \"y\"}")))
                    .toolInterceptor(chain -> {
                        happened.add("interceptor saw " + chain.call().toolName());
                        return chain.proceed();
                    }).build().run("write").await();
            assertThat(result.result()).isEqualTo("done");
            assertThat(happened).containsExactly("interceptor saw task_completion");
            assertThat(provider.requests().get(1).messages().getLast().content())
                    .contains("invalid arguments for write_file");
        }

        @Test
        void it_is_asked_for_every_call_that_needs_approval_before_any_of_them_runs() {
            ScriptedProvider provider = provider(
                    write("write_file", "x") + read("a") + write("write_file", "y"), complete("done"));
            ApprovalHandler person = (call, run) -> {
                happened.add("ask " + call.id() + " " + call.arguments().get("path").asString());
                return call.arguments().get("path").asString().equals("x") ? Decision.approve(call.id())
                        : Decision.deny(call.id(), "not y");
            };
            AgentRun run = DefaultAgentTest.agent(provider, READ_FILE, writeFile).requireApproval("*/write_file")
                    .approvalHandler(person).build().run("write");
            List<LoopEvent> events = DefaultAgentTest.loopEvents(DefaultAgentTest.events(run));
            assertThat(run.await().result()).isEqualTo("done");
            assertThat(happened).containsExactly("ask call_1_1 x", "ask call_1_3 y", "write x");
            assertThat(events).contains(new LoopEvent.Approval("call_1_1", true, ""),
                    new LoopEvent.Approval("call_1_3", false, "not y"));
            assertThat(events).noneMatch(LoopEvent.ApprovalRequired.class::isInstance);
        }

        @Test
        void a_cancel_at_the_question_runs_nothing_and_a_broken_handler_ends_the_run_naming_it() {
            AtomicReference<AgentRun> current = new AtomicReference<>();
            java.util.concurrent.CountDownLatch known = new java.util.concurrent.CountDownLatch(1);
            ScriptedProvider provider = provider(read("a") + write("write_file", "x"), complete("done"));
            DefaultAgent agent = DefaultAgentTest.agent(provider, READ_FILE, writeFile).requireApproval("*/write_file")
                    .approvalHandler((call, run) -> {
                        try {
                            known.await();                  // the handle, to press Ctrl-C with
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        current.get().cancel();             // Ctrl-C at the question
                        return Decision.deny(call.id(), "cancelled");
                    }).build();
            AgentRun run = agent.run("write", new Session());
            current.set(run);
            known.countDown();
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.CANCELLED);
            assertThat(happened).isEmpty();

            class Broken implements ApprovalHandler {
                @Override
                public Decision decide(WaitingCall call, RunContext run) {
                    return Decision.respond(call.id(), "?");
                }
            }
            AgentResult broken = DefaultAgentTest.agent(provider(write("write_file", "x")), writeFile)
                    .requireApproval("*").approvalHandler(new Broken()).build().run("write").await();
            assertThat(broken.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(broken.result()).startsWith("approval handler " + Broken.class.getName() + " answered call call_1_1");
        }
    }
}
