package dev.bellows.testkit;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official {@code openai} npm client streams from {@link MockLlmServer}: the judge of
 * "compatible enough". The package is installed once into {@code <repo>/.cache/npm}
 * (git-ignored). {@code openai@^4}: the newest major on the registry (7) needs node 22,
 * and v4 is the client most code in the wild still runs; its chunk handling is the same.
 */
class OfficialOpenAiClientTest {

    private static final String OPENAI_PACKAGE = "openai@^4";
    private static final long HANG_GUARD_SECONDS = 120;
    private static final long INSTALL_GUARD_SECONDS = 600;

    private static final String SCRIPT = """
            const path = require('path');
            const mod = require(path.join(process.argv[2], 'node_modules', 'openai'));
            const OpenAI = mod.OpenAI || mod.default || mod;
            const client = new OpenAI({baseURL: process.argv[3], apiKey: 'sk-test', maxRetries: 0});
            const out = (value) => console.log(JSON.stringify(value));
            const messages = [{role: 'system', content: 'be brief'}, {role: 'user', content: 'hello'}];
            (async () => {
              const stream = await client.chat.completions.create({model: 'mock', messages, stream: true});
              for await (const chunk of stream) {
                const choice = chunk.choices[0] || {};
                const delta = choice.delta || {};
                if (delta.reasoning_content) out({reasoning: delta.reasoning_content});
                if (delta.content) out({content: delta.content});
                if (choice.finish_reason) out({finish_reason: choice.finish_reason, id: chunk.id, object: chunk.object});
                if (chunk.usage) out({usage: chunk.usage});
              }
              const completion = await client.chat.completions.create({model: 'mock', messages});
              out({completion: completion.choices[0].message.content, finish_reason: completion.choices[0].finish_reason});
              const models = await client.models.list();
              out({models: models.data.map(m => m.id)});
              try {
                await client.chat.completions.create({model: 'mock', messages, stream: true});
                out({rate_limit: 'no error'});
              } catch (e) {
                out({rate_limit: e.status, message: e.message});
              }
              try {
                const cut = await client.chat.completions.create({model: 'mock', messages, stream: true});
                let text = '';
                for await (const chunk of cut) text += (chunk.choices[0] && chunk.choices[0].delta.content) || '';
                out({cut: 'ended cleanly', text});
              } catch (e) {
                out({cut: 'failed', error: String(e && e.message)});
              }
            })().catch((e) => { console.error(e); process.exit(1); });
            """;

    @Test
    void the_official_node_client_streams_from_the_mock(@TempDir Path dir) throws Exception {
        NpmPackages.requireNode();   // says plainly that Node.js and npm are needed, and how to get them
        Path npmDir = repoRoot().resolve(".cache").resolve("npm");
        installOpenAi(npmDir);
        Path script = dir.resolve("stream.js");
        Files.writeString(script, SCRIPT);

        MockScript turns = MockScript.builder()
                .turn(MockTurn.reasoning("deep thoughts").withContent("Hello, wörld 😀! Done.").chunkSize(3).delayMs(2))
                .turn(MockTurn.content("Not streamed."))
                .turn(MockTurn.status(429).header("Retry-After", "1").errorMessage("slow down"))
                .turn(MockTurn.content("This breaks off somewhere in the middle").cutAfter(12))
                .build();
        List<JsonNode> lines;
        String output;
        try (MockLlmServer server = MockLlmServer.start(turns)) {
            Path stdout = dir.resolve("node.out");
            Path stderr = dir.resolve("node.err");
            Process node = new ProcessBuilder("node", script.toString(), npmDir.toString(), server.baseUrl().toString())
                    .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            boolean finished = node.waitFor(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
            if (!finished) {
                node.destroyForcibly();
            }
            output = "node stdout:\n" + Files.readString(stdout) + "\nnode stderr:\n" + Files.readString(stderr);
            assertThat(finished).as("node finished within %d s (hang guard)\n%s", HANG_GUARD_SECONDS, output).isTrue();
            assertThat(node.exitValue()).as("node's exit status\n%s", output).isZero();
            lines = jsonLines(Files.readString(stdout));

            assertThat(server.requests()).as(output).hasSize(5);
            assertThat(server.requests().getFirst().header("authorization")).isEqualTo("Bearer [REDACTED]");
        }

        StringBuilder content = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        for (JsonNode line : lines) {
            if (line.has("content")) {
                content.append(line.get("content").asString());
            }
            if (line.has("reasoning")) {
                reasoning.append(line.get("reasoning").asString());
            }
        }
        assertThat(content.toString()).as(output).isEqualTo("Hello, wörld 😀! Done.");
        assertThat(reasoning.toString()).as(output).isEqualTo("deep thoughts");
        assertThat(find(lines, "finish_reason").path("finish_reason").asString()).as(output).isEqualTo("stop");
        assertThat(find(lines, "usage").path("usage").path("total_tokens").asInt()).as(output).isPositive();
        assertThat(find(lines, "completion").path("completion").asString()).as(output).isEqualTo("Not streamed.");
        assertThat(find(lines, "models").path("models").toString()).as(output).isEqualTo("[\"mock\"]");
        JsonNode rateLimit = find(lines, "rate_limit");
        assertThat(rateLimit.path("rate_limit").asInt()).as(output).isEqualTo(429);
        assertThat(rateLimit.path("message").asString()).as(output).contains("slow down");
        // the client notices the broken stream instead of taking the partial text as the answer
        assertThat(find(lines, "cut").path("cut").asString()).as(output).isEqualTo("failed");
    }

    private static JsonNode find(List<JsonNode> lines, String field) {
        return lines.stream().filter(line -> line.has(field)).findFirst()
                .orElseThrow(() -> new AssertionError("no line with \"" + field + "\" in " + lines));
    }

    private static List<JsonNode> jsonLines(String text) throws IOException {
        ObjectMapper mapper = Jackson.JSON;
        List<JsonNode> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                lines.add(mapper.readTree(line));
            }
        }
        return lines;
    }

    /** The directory holding {@code mvnw}, walking up from the module directory. */
    static Path repoRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new AssertionError("no mvnw above " + Path.of("").toAbsolutePath());
    }

    /** Installs the client unless it is there; a failing install fails the test with npm's output. */
    private static void installOpenAi(Path npmDir) throws Exception {
        if (Files.isDirectory(npmDir.resolve("node_modules").resolve("openai"))) {
            return;
        }
        Files.createDirectories(npmDir);
        Path log = Files.createTempFile("npm-install", ".log");
        try {
            String versions = run(log, "npm", "view", OPENAI_PACKAGE, "version");
            Process npm = new ProcessBuilder("npm", "install", "--prefix", npmDir.toString(), "--no-audit", "--no-fund",
                    OPENAI_PACKAGE).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!npm.waitFor(INSTALL_GUARD_SECONDS, TimeUnit.SECONDS)) {
                npm.destroyForcibly();
                fail("npm install " + OPENAI_PACKAGE + " did not finish in " + INSTALL_GUARD_SECONDS + " s:\n"
                        + Files.readString(log));
            }
            if (npm.exitValue() != 0 || !Files.isDirectory(npmDir.resolve("node_modules").resolve("openai"))) {
                fail("npm install " + OPENAI_PACKAGE + " failed (exit " + npm.exitValue() + "; versions: " + versions
                        + "):\n" + Files.readString(log));
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Runs a short command; fails the test with its output when it fails. */
    private static String run(Path log, String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean finished = process.waitFor(INSTALL_GUARD_SECONDS, TimeUnit.SECONDS);
        String output = Files.readString(log, StandardCharsets.UTF_8);
        if (!finished || process.exitValue() != 0) {
            process.destroyForcibly();
            fail(String.join(" ", command) + " failed: " + output);
        }
        return output.strip().replaceAll("\\s+", " ");
    }
}
