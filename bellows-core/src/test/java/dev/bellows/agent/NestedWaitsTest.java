package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.agent;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.json;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static dev.bellows.agent.InterceptorsTest.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Waits through nesting: a sub-agent's call that needs approval makes the whole run wait, the
 * decision goes down to it, and it runs exactly once, at any depth.
 */
class NestedWaitsTest {

    final List<String> happened = new CopyOnWriteArrayList<>();

    final Tool writeFile = TypedTool.of("write_file", "Writes a file", DefaultAgentTest.PathArguments.class,
            (context, arguments) -> {
                happened.add("write " + arguments.path());
                return ToolResult.of("wrote " + arguments.path());
            });

    private static String delegate(String agent, String task) {
        return call(agent, "{\"task\": \"" + task + "\"}");
    }

    @Test
    void aSubAgentsCallThatNeedsApprovalMakesTheWholeRunWaitAndTheApprovalRunsItOnceWhereItStopped() {
        ScriptedProvider writerModel = provider(write("write_file", "x.txt"), complete("x written"));
        DefaultAgent writer = agent(writerModel, writeFile).requireApproval("local/write_file").build();
        ScriptedProvider leadModel = provider(delegate("writer", "write x"), complete("done"));
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(leadModel, AgentTool.of("writer", "Writes", writer)).listener(heard::add).build();
        Session session = new Session();

        AgentResult stopped = lead.run("get x written", session).await();

        assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(stopped.waiting()).singleElement().satisfies(waiting -> {
            assertThat(waiting.id()).isEqualTo("call_1_1/call_1_1");
            assertThat(waiting.kind()).isEqualTo(WaitingCall.Kind.APPROVAL);
            assertThat(waiting.call()).isEqualTo(new ToolCall("local", "write_file", json("{\"path\": \"x.txt\"}")));
        });
        assertThat(heard).contains(new LoopEvent.ApprovalRequired("call_1_1/call_1_1", "local", "write_file",
                json("{\"path\": \"x.txt\"}")));
        assertThat(session.waiting()).extracting(WaitingCall::id).containsExactly("call_1_1/call_1_1");
        assertThat(happened).isEmpty();
        assertThat(writerModel.requests()).hasSize(1);

        heard.clear();
        AgentResult done = lead.resume(session, List.of(Decision.approve("call_1_1/call_1_1"))).await();

        assertThat(done).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
        assertThat(happened).containsExactly("write x.txt");
        assertThat(heard).contains(new LoopEvent.Approval("call_1_1/call_1_1", true, ""));
        // the sub-agent went on where it stopped: its next request reads the call's result
        assertThat(writerModel.requests()).hasSize(2);
        assertThat(writerModel.requests().get(1).messages().getLast().content()).contains("wrote x.txt");
        assertThat(leadModel.requests().get(1).messages().getLast().content()).contains("x written");
        assertThat(heard).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(LoopEvent.SubAgentEvent.class,
                nested -> assertThat(nested.innermost()).isInstanceOf(LoopEvent.ToolResultEvent.class)));
        assertThat(session.hasWaitingRun()).isFalse();
    }

    @Test
    void theStoredStateIsAllAResumeNeedsInANewProcessWithNewAgents() {
        DefaultAgent writer = agent(provider(write("write_file", "x.txt")), writeFile)
                .requireApproval("local/write_file").build();
        DefaultAgent lead = agent(provider(delegate("writer", "write x")), AgentTool.of("writer", "Writes", writer))
                .build();
        Session first = new Session();
        assertThat(lead.run("get x written", first).await().reason()).isEqualTo(LoopEndReason.INTERRUPTED);

        // what a stored session keeps, read back into a session of a "new process"
        Session second = new Session();
        second.suspend(SuspensionJson.readSuspension(SuspensionJson.write(first.suspension())));
        ScriptedProvider writerModel = provider(complete("x written"));
        ScriptedProvider leadModel = provider(complete("done"));
        DefaultAgent writerAgain = agent(writerModel, writeFile).requireApproval("local/write_file").build();
        DefaultAgent leadAgain = agent(leadModel, AgentTool.of("writer", "Writes", writerAgain)).build();

        assertThat(leadAgain.resume(second, List.of(Decision.approve("call_1_1/call_1_1"))).await())
                .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
        assertThat(happened).containsExactly("write x.txt");
        // the sub-agent's conversation came with it: its one request holds its task, its answer, the result
        assertThat(writerModel.requests()).singleElement().satisfies(request ->
                assertThat(request.messages().toString()).contains("write x", "x.txt", "wrote x.txt"));
    }

    @Test
    void aResumeCutShortWhileTheNestedCallRanDoesNotRunItAgain() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        Tool slowWrite = TypedTool.of("write_file", "Writes a file", DefaultAgentTest.PathArguments.class,
                (context, arguments) -> {
                    happened.add("write " + arguments.path());
                    running.countDown();
                    new CountDownLatch(1).await();          // until the run is cancelled
                    return ToolResult.of("wrote");
                });
        ScriptedProvider writerModel = provider(write("write_file", "x.txt"), complete("not sure it was written"));
        DefaultAgent writer = agent(writerModel, slowWrite).requireApproval("local/write_file").build();
        ScriptedProvider leadModel = provider(delegate("writer", "write x"), complete("done"));
        DefaultAgent lead = agent(leadModel, AgentTool.of("writer", "Writes", writer)).build();
        Session session = new Session();
        assertThat(lead.run("get x written", session).await().reason()).isEqualTo(LoopEndReason.INTERRUPTED);

        AgentRun cut = lead.resume(session, List.of(Decision.approve("call_1_1/call_1_1")));
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        cut.cancel();
        assertThat(cut.await().reason()).isEqualTo(LoopEndReason.CANCELLED);
        assertThat(session.hasWaitingRun()).as("the run still waits, with what the resume did").isTrue();

        assertThat(lead.resume(session, List.of(Decision.approve("call_1_1/call_1_1"))).await())
                .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
        assertThat(happened).as("started once, never again").containsExactly("write x.txt");
        assertThat(writerModel.requests()).hasSize(2);
        assertThat(writerModel.requests().get(1).messages().getLast().content())
                .contains("the outcome of this call is unknown");
    }

    @Test
    void aHandlerIsAskedAboutTheSubAgentsCallAndTheRunGoesOnWithoutStopping() {
        DefaultAgent writer = agent(provider(write("write_file", "x.txt"), complete("x written")), writeFile)
                .requireApproval("local/write_file").build();
        List<WaitingCall> asked = new CopyOnWriteArrayList<>();
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(delegate("writer", "write x"), complete("done")),
                AgentTool.of("writer", "Writes", writer))
                .approvalHandler((call, run) -> {
                    asked.add(call);
                    return Decision.approve(call.id());
                })
                .listener(heard::add).build();

        assertThat(lead.run("get x written").await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
        assertThat(asked).extracting(WaitingCall::id).containsExactly("call_1_1/call_1_1");
        assertThat(happened).containsExactly("write x.txt");
        // the question comes after the sub-agent's events that led to it
        int approval = heard.indexOf(new LoopEvent.Approval("call_1_1/call_1_1", true, ""));
        int subAgentStopped = indexOf(heard, e -> e instanceof LoopEvent.SubAgentEvent nested
                && nested.innermost() instanceof LoopEvent.ApprovalRequired);
        assertThat(subAgentStopped).isNotNegative().isLessThan(approval);
    }

    @Test
    void aDenialGoesDownAnyDepthAndTheDeepestModelReadsIt() {
        ScriptedProvider leafModel = provider(write("write_file", "x.txt"), complete("could not write"));
        DefaultAgent leaf = agent(leafModel, writeFile).requireApproval("local/write_file").build();
        DefaultAgent middle = agent(provider(delegate("leaf", "write x"), complete("leaf could not")),
                AgentTool.of("leaf", "Writes", leaf)).build();
        DefaultAgent lead = agent(provider(delegate("middle", "get it written"), complete("gave up")),
                AgentTool.of("middle", "Delegates", middle)).build();
        Session session = new Session();

        AgentResult stopped = lead.run("go", session).await();
        assertThat(stopped.reason()).as(stopped.toString()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(stopped.waiting()).extracting(WaitingCall::id).containsExactly("call_1_1/call_1_1/call_1_1");
        assertThatThrownBy(() -> lead.resume(session, List.of(Decision.approve("call_1_1/call_1_1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("call_1_1/call_1_1/call_1_1");

        assertThat(lead.resume(session, List.of(Decision.deny("call_1_1/call_1_1/call_1_1", "not there"))).await())
                .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "gave up"));
        assertThat(happened).isEmpty();
        assertThat(leafModel.requests().get(1).messages().getLast().content())
                .contains("the user denied this call (it did not run): not there");
    }

    @Test
    void aSequenceWaitsAtItsStepAndGoesOnFromThere() {
        ScriptedProvider draftModel = provider(complete("draft"));
        DefaultAgent drafter = agent(draftModel).build();
        DefaultAgent writer = agent(provider(write("write_file", "x.txt"), complete("x written")), writeFile)
                .requireApproval("local/write_file").build();
        ScriptedProvider reviewModel = provider(complete("reviewed"));
        DefaultAgent reviewer = agent(reviewModel).build();
        AgentTool pipeline = AgentTool.sequence("pipeline", "Draft, write, review", List.of(
                AgentTool.of("drafter", "Drafts", drafter), AgentTool.of("writer", "Writes", writer),
                AgentTool.of("reviewer", "Reviews", reviewer)));
        ScriptedProvider leadModel = provider(delegate("pipeline", "go"), complete("done"));
        DefaultAgent lead = agent(leadModel, pipeline).build();
        Session session = new Session();

        assertThat(lead.run("go", session).await().waiting()).extracting(WaitingCall::id)
                .containsExactly("call_1_1/call_1_1");
        assertThat(reviewModel.requests()).isEmpty();

        assertThat(lead.resume(session, List.of(Decision.approve("call_1_1/call_1_1"))).await().result())
                .isEqualTo("done");
        assertThat(draftModel.requests()).as("the steps before do not run again").hasSize(1);
        assertThat(reviewModel.requests().getFirst().messages().toString()).contains("x written");
        assertThat(leadModel.requests().get(1).messages().getLast().content()).contains("reviewed");
    }

    @Test
    void aLoopWaitsAtItsRoundAndGoesOnFromThere() {
        ScriptedProvider bodyModel = provider(complete("round one"), write("write_file", "x.txt"),
                complete("final text"));
        DefaultAgent body = agent(bodyModel, writeFile).requireApproval("local/write_file").build();
        AgentTool polish = AgentTool.loop("polish", "Polishes", AgentTool.of("editor", "Edits", body),
                answer -> answer.contains("final"), 3);
        ScriptedProvider leadModel = provider(delegate("polish", "go"), complete("done"));
        DefaultAgent lead = agent(leadModel, polish).build();
        Session session = new Session();

        assertThat(lead.run("go", session).await().waiting()).extracting(WaitingCall::id)
                .containsExactly("call_1_1/call_1_1");
        assertThat(happened).isEmpty();

        assertThat(lead.resume(session, List.of(Decision.approve("call_1_1/call_1_1"))).await().result())
                .isEqualTo("done");
        assertThat(happened).containsExactly("write x.txt");
        assertThat(bodyModel.requests()).as("round one does not run again, no round after the final one")
                .hasSize(3);
        assertThat(leadModel.requests().get(1).messages().getLast().content()).contains("final text");
    }

    @Test
    void aRouterWaitsAtItsRouteAndTheChooserIsNotAskedAgain() {
        ScriptedProvider chooserModel = provider(complete("writer"));
        DefaultAgent chooser = agent(chooserModel).build();
        DefaultAgent writer = agent(provider(write("write_file", "x.txt"), complete("x written")), writeFile)
                .requireApproval("local/write_file").build();
        ScriptedProvider reviewModel = provider(complete("reviewed"));
        AgentTool desk = AgentTool.router("desk", "Routes", List.of(AgentTool.of("writer", "Writes", writer),
                AgentTool.of("reviewer", "Reviews", agent(reviewModel).build())), chooser);
        ScriptedProvider leadModel = provider(delegate("desk", "write x"), complete("done"));
        DefaultAgent lead = agent(leadModel, desk).build();
        Session session = new Session();

        assertThat(lead.run("go", session).await().waiting()).extracting(WaitingCall::id)
                .containsExactly("call_1_1/call_1_1");

        assertThat(lead.resume(session, List.of(Decision.approve("call_1_1/call_1_1"))).await().result())
                .isEqualTo("done");
        assertThat(happened).containsExactly("write x.txt");
        assertThat(chooserModel.requests()).hasSize(1);
        assertThat(reviewModel.requests()).isEmpty();
        assertThat(leadModel.requests().get(1).messages().getLast().content()).contains("x written");
    }

    @Test
    void aWorkflowRunByItselfThatWouldWaitEndsWithAnErrorSayingWhy() {
        DefaultAgent writer = agent(provider(write("write_file", "x.txt"), complete("x written")), writeFile)
                .requireApproval("local/write_file").build();
        AgentResult ended = AgentTool.sequence("pipeline", "Writes", List.of(AgentTool.of("writer", "Writes", writer)))
                .asAgent().run("go").await();

        assertThat(ended.reason()).isEqualTo(LoopEndReason.ERROR);
        assertThat(ended.result()).contains("call_1_1").contains("cannot wait for");
        assertThat(happened).isEmpty();
    }

    @Test
    void theBranchesOfAParallelWorkflowWaitTogetherAndTheOthersAnswersAreKept() {
        ScriptedProvider leftModel = provider(write("write_file", "left.txt"), complete("left written"));
        ScriptedProvider rightModel = provider(write("write_file", "right.txt"), complete("right not written"));
        ScriptedProvider quietModel = provider(complete("nothing to write"));
        ScriptedProvider editorModel = provider(complete("merged"));
        DefaultAgent left = agent(leftModel, writeFile).requireApproval("local/write_file").build();
        DefaultAgent right = agent(rightModel, writeFile).requireApproval("local/write_file").build();
        AgentTool all = AgentTool.parallel("all", "Writes side by side", List.of(
                AgentTool.of("left", "Writes", left), AgentTool.of("right", "Writes", right),
                AgentTool.of("quiet", "Writes nothing", agent(quietModel).build())),
                AgentTool.of("editor", "Merges", agent(editorModel).build()), 3);
        ScriptedProvider leadModel = provider(delegate("all", "write"), complete("done"));
        DefaultAgent lead = agent(leadModel, all).build();
        Session session = new Session();

        assertThat(lead.run("go", session).await().waiting()).extracting(WaitingCall::id)
                .containsExactly("call_1_1/left/call_1_1", "call_1_1/right/call_1_1");
        assertThat(editorModel.requests()).isEmpty();

        assertThat(lead.resume(session, List.of(Decision.approve("call_1_1/left/call_1_1"),
                Decision.deny("call_1_1/right/call_1_1", "not now"))).await().result()).isEqualTo("done");
        assertThat(happened).containsExactly("write left.txt");
        assertThat(quietModel.requests()).as("a branch that answered does not run again").hasSize(1);
        assertThat(rightModel.requests().get(1).messages().getLast().content()).contains("not now");
        assertThat(editorModel.requests().getFirst().messages().toString())
                .contains("## left", "left written", "## right", "right not written", "## quiet", "nothing to write");
    }

    @Test
    void aToolOfItsOwnCanWaitForAnAnswerFromOutsideAndIsResumedWithIt() {
        List<String> notes = new CopyOnWriteArrayList<>();
        ResumableTool asking = new AskingTool("t-1") {

            @Override
            public ToolResult<?> resume(dev.bellows.tool.ToolContext context, tools.jackson.databind.JsonNode arguments,
                                        Resumption resumption) {
                resumption.note(json("{\"sent\": true}"));
                notes.add(resumption.state().get("task").asString());
                return ToolResult.of("the remote agent heard: "
                        + ((Decision.Respond) resumption.decisions().getFirst()).result());
            }
        };
        ScriptedProvider model = provider(call("ask_remote", "{}"), complete("done"));
        DefaultAgent agent = agent(model, asking).build();
        Session session = new Session();

        AgentResult stopped = agent.run("plan", session).await();
        assertThat(stopped.waiting()).singleElement().satisfies(waiting -> {
            assertThat(waiting.id()).isEqualTo("call_1_1/input");
            assertThat(waiting.kind()).isEqualTo(WaitingCall.Kind.EXTERNAL);
        });
        assertThatThrownBy(() -> agent.resume(session, List.of(Decision.approve("call_1_1/input"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Decision.respond");

        assertThat(agent.resume(session, List.of(Decision.respond("call_1_1/input", "Paris"))).await().result())
                .isEqualTo("done");
        assertThat(notes).containsExactly("t-1");
        assertThat(model.requests().get(1).messages().getLast().content()).contains("the remote agent heard: Paris");
    }

    /** Asks a remote agent for the city it is given, and remembers the arguments of each call and resume. */
    private ResumableTool askingFor(List<String> seen) {
        return new ResumableTool() {
            @Override
            public String name() {
                return "ask_remote";
            }

            @Override
            public String description() {
                return "Asks a remote agent about a city";
            }

            @Override
            public tools.jackson.databind.node.ObjectNode inputSchema() {
                return json("{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}},"
                        + " \"required\": [\"city\"]}");
            }

            @Override
            public ToolResult<?> call(dev.bellows.tool.ToolContext context, tools.jackson.databind.JsonNode arguments)
                    throws ToolException {
                seen.add("call " + arguments.get("city").asString());
                throw new ToolSuspended(json("{\"task\": \"t-1\"}"), List.of(new WaitingCall("input",
                        new ToolCall("remote", "planner", json("{\"question\": \"when?\"}")), WaitingCall.Kind.EXTERNAL)));
            }

            @Override
            public ToolResult<?> resume(dev.bellows.tool.ToolContext context, tools.jackson.databind.JsonNode arguments,
                                        Resumption resumption) {
                seen.add("resume " + arguments.get("city").asString());
                return ToolResult.of("asked about " + arguments.get("city").asString());
            }
        };
    }

    @Test
    void aCallApprovedWithEditedArgumentsThatSuspendsIsResumedWithTheApprovedArguments() {
        List<String> seen = new CopyOnWriteArrayList<>();
        ScriptedProvider model = provider(call("ask_remote", "{\"city\": \"Pari\"}"), complete("done"));
        List<ToolCall> intercepted = new CopyOnWriteArrayList<>();
        DefaultAgent agent = agent(model, askingFor(seen)).requireApproval("local/ask_remote")
                .toolInterceptor(chain -> {
                    if (chain.call().toolName().equals("ask_remote")) {
                        intercepted.add(chain.call());
                    }
                    return chain.proceed();
                }).build();
        Session session = new Session();
        assertThat(agent.run("plan", session).await().waiting()).extracting(WaitingCall::id).containsExactly("call_1_1");

        AgentResult suspended = agent.resume(session, List.of(Decision.approve("call_1_1", json("{\"city\": \"Paris\"}"))))
                .await();
        assertThat(suspended.waiting()).extracting(WaitingCall::id).containsExactly("call_1_1/input");

        assertThat(agent.resume(session, List.of(Decision.respond("call_1_1/input", "tomorrow"))).await().result())
                .isEqualTo("done");
        assertThat(seen).containsExactly("call Paris", "resume Paris");
        assertThat(intercepted).extracting(call -> call.arguments().get("city").asString())
                .as("an interceptor sees the resumed call as it was approved").containsExactly("Paris", "Paris");
        assertThat(model.requests().get(1).messages().getLast().content()).contains("asked about Paris");
    }

    @Test
    void theApprovedArgumentsOfASuspendedCallAreKeptWithTheStoredWaitingRun() {
        List<String> seen = new CopyOnWriteArrayList<>();
        DefaultAgent agent = agent(provider(call("ask_remote", "{\"city\": \"Pari\"}")), askingFor(seen))
                .requireApproval("local/ask_remote").build();
        Session first = new Session();
        agent.run("plan", first).await();
        agent.resume(first, List.of(Decision.approve("call_1_1", json("{\"city\": \"Paris\"}")))).await();

        // a resume in a new process, from what a session store keeps
        Session second = new Session();
        second.suspend(SuspensionJson.readSuspension(SuspensionJson.write(first.suspension())));
        ScriptedProvider model = provider(complete("done"));
        DefaultAgent again = agent(model, askingFor(seen)).requireApproval("local/ask_remote").build();
        assertThat(again.resume(second, List.of(Decision.respond("call_1_1/input", "tomorrow"))).await().result())
                .isEqualTo("done");
        assertThat(seen).containsExactly("call Paris", "resume Paris");
    }

    @Test
    void aWaitingRunGivenUpTellsTheSuspendedToolDownThroughAWorkflowAndASubAgent() {
        List<String> gaveUp = new CopyOnWriteArrayList<>();
        ResumableTool asking = new AskingTool("t-9") {

            @Override
            public ToolResult<?> resume(dev.bellows.tool.ToolContext context, tools.jackson.databind.JsonNode arguments,
                                        Resumption resumption) {
                gaveUp.add("resumed");
                return ToolResult.of("resumed");
            }

            @Override
            public void giveUp(dev.bellows.tool.ToolContext context, tools.jackson.databind.JsonNode arguments,
                               Resumption resumption) {
                gaveUp.add(resumption.state().get("task").asString() + " "
                        + ((Decision.Deny) resumption.decisions().getFirst()).reason());
            }
        };
        DefaultAgent asker = agent(provider(call("ask_remote", "{}"), complete("asked")), asking).build();
        AgentTool pipeline = AgentTool.sequence("pipeline", "Asks", List.of(AgentTool.of("asker", "Asks", asker)));
        ScriptedProvider leadModel = provider(delegate("pipeline", "go"), complete("never"));
        DefaultAgent lead = agent(leadModel, pipeline).build();
        Session session = new Session();

        assertThat(lead.run("go", session).await().waiting()).extracting(WaitingCall::id)
                .containsExactly("call_1_1/call_1_1/input");
        lead.cancelWaiting(session, "the user moved on");
        assertThat(gaveUp).containsExactly("t-9 the user moved on");
        assertThat(session.hasWaitingRun()).isFalse();
        assertThat(leadModel.requests()).as("nothing went to a model").hasSize(1);
    }

    @Test
    void aSuspensionsStateIsFrozenWhenThrownAndWhenGivenBackToTheResume() {
        tools.jackson.databind.node.ObjectNode mine = json("{\"task\": \"t-1\"}");
        ToolSuspended suspended = new ToolSuspended(mine, List.of(new WaitingCall("input",
                new ToolCall("remote", "planner", json("{}")), WaitingCall.Kind.EXTERNAL)));
        mine.put("task", "changed afterwards");
        assertThat(suspended.state().get("task").asString()).isEqualTo("t-1");
        assertThatThrownBy(() -> ((tools.jackson.databind.node.ObjectNode) suspended.state()).put("task", "t-2"))
                .isInstanceOf(UnsupportedOperationException.class);

        List<String> seen = new CopyOnWriteArrayList<>();
        ResumableTool asking = new AskingTool("t-1") {

            @Override
            public ToolResult<?> resume(dev.bellows.tool.ToolContext context, tools.jackson.databind.JsonNode arguments,
                                        Resumption resumption) {
                try {
                    ((tools.jackson.databind.node.ObjectNode) resumption.state()).put("task", "t-2");
                    seen.add("changed");
                } catch (UnsupportedOperationException e) {
                    seen.add("refused");
                }
                seen.add(resumption.state().get("task").asString());
                return ToolResult.of("resumed");
            }
        };
        DefaultAgent agent = agent(provider(call("ask_remote", "{}"), complete("done")), asking).build();
        Session session = new Session();

        assertThat(agent.run("plan", session).await().waiting()).extracting(WaitingCall::id)
                .containsExactly("call_1_1/input");
        assertThat(agent.resume(session, List.of(Decision.respond("call_1_1/input", "Paris"))).await().result())
                .isEqualTo("done");
        assertThat(seen).containsExactly("refused", "t-1");
    }

    /** A tool whose call waits for an answer from outside ({@code input}), keeping {@code {"task": TASK}}. */
    abstract static class AskingTool implements ResumableTool {
        private final String task;

        AskingTool(String task) {
            this.task = task;
        }

        @Override
        public String name() {
            return "ask_remote";
        }

        @Override
        public String description() {
            return "Asks a remote agent";
        }

        @Override
        public tools.jackson.databind.node.ObjectNode inputSchema() {
            return json("{\"type\": \"object\"}");
        }

        @Override
        public ToolResult<?> call(dev.bellows.tool.ToolContext context, tools.jackson.databind.JsonNode arguments)
                throws ToolException {
            throw new ToolSuspended(json("{\"task\": \"" + task + "\"}"), List.of(new WaitingCall("input",
                    new ToolCall("remote", "planner", json("{\"question\": \"which city?\"}")),
                    WaitingCall.Kind.EXTERNAL)));
        }
    }

    static int indexOf(List<AgentEvent> events, java.util.function.Predicate<AgentEvent> test) {
        for (int i = 0; i < events.size(); i++) {
            if (test.test(events.get(i))) {
                return i;
            }
        }
        return -1;
    }
}
