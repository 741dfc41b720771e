package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad JSON anywhere a user gives JSON is described in plain words: never in Jackson's. */
class JsonMessagesTest {

    @ParameterizedTest
    @ValueSource(strings = {"{\"model\": \"x\",}", "{\"turns\": [", "{'model': 'x'}", "[1 2]", "{\"a\": tru}", "\"\\x\""})
    void configScriptAndInputLinesSayWhatIsWrongInPlainWords(String json, @TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("bad.json"), json);
        Host host = new Host(Map.of(), dir, Interrupts.NONE, false);
        Cli.Run config = Cli.run(host, "run", "--config", "bad.json", "task");
        Cli.Run script = Cli.run("", "mock-server", "--script", file.toString());
        Cli.Run line = Cli.run(json + "\n", "parse");
        for (Cli.Run run : new Cli.Run[] {config, script, line}) {
            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).contains("JSON").containsPattern("(line|column) \\d+")
                    .doesNotContain("Unexpected", "Unrecognized", "[Source", "StreamReadFeature", "(code ",
                            "marker", "JsonToken", "jackson", "was expecting");
        }
        assertThat(config.err()).startsWith("bellows run: --config bad.json: invalid JSON: line 1, column ");
    }
}
