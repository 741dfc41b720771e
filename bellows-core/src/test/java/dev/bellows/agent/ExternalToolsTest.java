package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.TypedTool;
import dev.bellows.tool.ToolResult;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A run's external tools ({@link DefaultAgent#run(String, Session, List)}): offered to the model
 * for that run alone, never run by the loop (their calls wait, {@link WaitingCall.Kind#EXTERNAL}),
 * answered by {@link DefaultAgent#resume(Session, List, List)} with {@link Decision#respond}; the
 * agent's registry is not changed and no interceptor of the agent's sees their calls.
 */
class ExternalToolsTest {

    record Question(String question) {
    }

    /** A tool the caller carries out: the loop must never call it. */
    static final Tool ASK = TypedTool.of("ask_user", "Asks the user a question.", Question.class, (context, args) -> {
        throw new AssertionError("an external tool was run by the loop");
    });

    @Test
    void aCallOfAnExternalToolWaitsAndItsResultCarriesTheRunOn() {
        ScriptedProvider model = provider(
                call("ask_user", "{\"question\": \"Which file?\"}"),
                complete("read the one the user named"));
        List<String> intercepted = new CopyOnWriteArrayList<>();
        ToolRegistry registry = new ToolRegistry();
        DefaultAgent agent = DefaultAgent.builder().provider(model).model("mock").toolRegistry(registry)
                .toolInterceptor(chain -> {
                    intercepted.add(chain.call().toolName());
                    return chain.proceed();
                })
                .build();
        Session session = new Session();
        AgentResult stopped = agent.run("Read a file", session, List.of(ASK)).await();
        assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(stopped.waiting()).singleElement().satisfies(waiting -> {
            assertThat(waiting.id()).isEqualTo("call_1_1");
            assertThat(waiting.kind()).isEqualTo(WaitingCall.Kind.EXTERNAL);
            assertThat(waiting.arguments().get("question").asString()).isEqualTo("Which file?");
        });
        // offered to the model for the run, not added to the agent's tools
        assertThat(model.requests().get(0).messages().toString()).contains("ask_user");
        assertThat(registry.tools()).isEmpty();
        assertThat(agent.toolRegistry().orElseThrow().find("local", "ask_user")).isEmpty();

        AgentResult done = agent.resume(session, List.of(Decision.respond("call_1_1", "notes.md")), List.of(ASK)).await();
        assertThat(done.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(done.result()).isEqualTo("read the one the user named");
        assertThat(model.requests().get(1).messages().toString()).contains("notes.md");
        assertThat(intercepted).doesNotContain("ask_user");
    }

    @Test
    void theAgentsApprovalsAreNotAskedForACallItsCallerCarriesOut() {
        ScriptedProvider model = provider(call("ask_user", "{\"question\": \"Which?\"}"), complete("done"));
        DefaultAgent agent = DefaultAgent.builder().provider(model).model("mock").toolRegistry(new ToolRegistry())
                .requireApproval("*").build();
        Session session = new Session();
        AgentResult stopped = agent.run("Ask", session, List.of(ASK)).await();
        assertThat(stopped.waiting()).singleElement()
                .satisfies(waiting -> assertThat(waiting.kind()).isEqualTo(WaitingCall.Kind.EXTERNAL));
        assertThat(agent.resume(session, List.of(Decision.respond("call_1_1", "this one")), List.of(ASK)).await().result())
                .isEqualTo("done");
    }

    @Test
    void anotherRunOfTheSameAgentDoesNotSeeThemAndTakenNamesAreRefused() {
        ScriptedProvider model = provider(call("ask_user", "{\"question\": \"Hm?\"}"), complete("gave up"));
        DefaultAgent agent = DefaultAgent.builder().provider(model).model("mock").toolRegistry(new ToolRegistry()
                .register(TypedTool.of("add", "Adds.", Question.class, (context, args) -> ToolResult.of("0")))).build();
        AgentResult plain = agent.run("Ask", new Session()).await();
        // without the external tool the call is an unknown tool, which the model reads: nothing waits
        assertThat(plain.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(plain.waiting()).isEmpty();
        assertThat(model.requests().get(0).messages().toString()).doesNotContain("Asks the user a question.");

        Tool named = TypedTool.of("add", "Mine.", Question.class, (context, args) -> ToolResult.of("1"));
        assertThatThrownBy(() -> agent.run("Ask", new Session(), List.of(named)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"add\"");
        Tool completion = TypedTool.of("task_completion", "Mine.", Question.class, (context, args) -> ToolResult.of("1"));
        assertThatThrownBy(() -> agent.run("Ask", new Session(), List.of(completion)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"task_completion\"");
        assertThatThrownBy(() -> agent.run("Ask", new Session(), List.of(ASK, ASK)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two external tools");
    }
}
