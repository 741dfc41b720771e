package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bellows run --dialect}: the model's own call format runs the loop, over real HTTP. */
class RunDialectTest {

    /** Kimi K2's own format, which the default tags do not recognise. */
    private static final String KIMI_COMPLETION = "Done.<|tool_calls_section_begin|><|tool_call_begin|>"
            + "functions.task_completion:0<|tool_call_argument_begin|>{\"result\": \"all done\"}<|tool_call_end|>"
            + "<|tool_calls_section_end|>";

    @TempDir
    Path dir;

    private Cli.Run run(MockLlmServer server, String model, String... flags) {
        String[] args = new String[6 + flags.length];
        args[0] = "run";
        args[1] = "--base-url";
        args[2] = server.baseUrl().toString();
        args[3] = "--model";
        args[4] = model;
        System.arraycopy(flags, 0, args, 5, flags.length);
        args[args.length - 1] = "finish it";
        return Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), args);
    }

    private static MockLlmServer server(String answer) throws IOException {
        return MockLlmServer.start(MockScript.of(MockTurn.content(answer)));
    }

    @Test
    void aNamedDialectRunsTheModelsOwnToolCalls() throws IOException {
        try (MockLlmServer server = server(KIMI_COMPLETION)) {
            Cli.Run run = run(server, "mock", "--dialect", "kimi_k2");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("all done\n");
        }
    }

    @Test
    void autoPicksTheDialectFromTheModelName() throws IOException {
        try (MockLlmServer server = server(KIMI_COMPLETION)) {
            Cli.Run run = run(server, "moonshotai/Kimi-K2-Instruct", "--dialect", "auto");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("all done\n");
        }
    }

    @Test
    void theContractsToolTagsThatThePromptTeachesStillWork() throws IOException {
        try (MockLlmServer server = server("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\":"
                + " \"via tags\"}}</tool>")) {
            Cli.Run run = run(server, "mock", "--dialect", "glm45");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("via tags\n");
        }
    }

    @Test
    void anUnknownDialectIsAUsageErrorBeforeAnyRequest() throws IOException {
        try (MockLlmServer server = server(KIMI_COMPLETION)) {
            Cli.Run run = run(server, "mock", "--dialect", "qwen9");
            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).contains("--dialect: unknown dialect 'qwen9'").doesNotContain("Exception");
            assertThat(server.requests()).isEmpty();
        }
    }
}
