package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.testkit.LogCapture;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * docs/logging.md: with every level of {@code dev.bellows} switched on, a run that is retried
 * and calls a slow tool logs the server's start, each request and its stop, the retry and why,
 * and the slow tool; nothing is logged above DEBUG for it; and no line, nor any exception
 * logged with one, contains the API key.
 */
class LoggingTest {

    private static final String KEY = "sk-logging-test-SECRET-0123456789abcdef";

    record Nothing() {
    }

    @Test
    void aRetriedRunWithASlowToolIsLoggedAtDebugAndNeverShowsTheKey() throws Exception {
        MockScript script = MockScript.builder()
                .turn(MockTurn.status(503).errorMessage("overloaded, key " + KEY + " was fine"))
                .turn(MockTurn.content("<tool>{\"tool_name\": \"slow\", \"arguments\": {}}</tool>"))
                .turn(MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"done\"}}</tool>"))
                .build();
        TypedTool<Nothing, String> slow = TypedTool.of("slow", "Takes its time.", Nothing.class, (context, nothing) -> {
            Thread.sleep(1100);   // beyond the one-second mark at which a tool is logged as slow
            return ToolResult.of("finally");
        });
        List<LogCapture.Line> lines;
        try (LogCapture logs = LogCapture.of("dev.bellows")) {
            try (MockLlmServer server = MockLlmServer.start(script);
                 OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl().toString())
                         .apiKey(ApiKey.of(KEY)).build()) {
                AgentResult result = DefaultAgent.builder().provider(provider).model("mock")
                        .retryPolicy(new RetryPolicy(2, Duration.ZERO, Duration.ZERO))
                        .toolRegistry(new ToolRegistry().register(slow)).build()
                        .run("Take your time").await();
                assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
            }
            lines = logs.lines();
        }

        assertThat(lines).extracting(LogCapture.Line::message).anyMatch(m -> m.startsWith("mock server listening on"))
                .anyMatch(m -> m.contains("POST /v1/chat/completions"))
                .anyMatch(m -> m.contains("retrying (attempt 2 of 3)") && m.contains("503"))
                .anyMatch(m -> m.startsWith("tool local/slow took "))
                .anyMatch(m -> m.startsWith("mock server on") && m.contains("stopping after 3 requests"));
        assertThat(lines).allMatch(line -> line.level().intValue() < Level.INFO.intValue(),
                "below INFO, so that nothing shows with the JDK's default configuration");
        for (LogCapture.Line line : lines) {
            assertThat(line.message()).doesNotContain(KEY);
            if (line.thrown() != null) {
                StringWriter trace = new StringWriter();
                line.thrown().printStackTrace(new PrintWriter(trace));
                assertThat(trace.toString()).doesNotContain(KEY);
            }
        }
    }

    @Test
    void aRefusalIsLoggedAsNotRetriedWithoutTheKey() throws Exception {
        MockScript script = MockScript.builder()
                .turn(MockTurn.status(401).errorMessage("Incorrect API key provided: " + KEY))
                .build();
        List<LogCapture.Line> lines;
        try (LogCapture logs = LogCapture.of("dev.bellows.provider")) {
            try (MockLlmServer server = MockLlmServer.start(script);
                 OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl().toString())
                         .apiKey(ApiKey.of(KEY)).build()) {
                AgentResult result = DefaultAgent.builder().provider(provider).model("mock").build()
                        .run("Hello").await();
                assertThat(result.reason()).isEqualTo(LoopEndReason.ERROR);
            }
            lines = logs.lines();
        }

        assertThat(lines).extracting(LogCapture.Line::message)
                .anyMatch(m -> m.contains("not retried (") && m.contains("a retry would not help") && m.contains("401"))
                .noneMatch(m -> m.contains(KEY));
    }
}
