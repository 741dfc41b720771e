package dev.bellows.mcp;

import tools.jackson.databind.JsonNode;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolChain;
import dev.bellows.tool.ToolChainResult;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official reference servers from the npm registry, over stdio and Streamable HTTP, called
 * the way the agent calls tools: through the registry and the ToolChain.
 */
class ReferenceServersTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    @Test
    void everything_over_stdio_lists_its_tools_and_answers_calls() throws Exception {
        Set<Long> before = TestServers.descendants();
        try (McpServers servers = McpServers.start(List.of(TestServers.everythingOverStdio("everything").build()),
                McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).isEmpty();
            assertEverythingWorks(registry, "everything");
        }
        TestServers.assertNoNewProcesses(before);
    }

    @Test
    void everything_over_streamable_http_answers_the_same() throws Exception {
        TestServers.Listening listening = TestServers.everythingOverHttp();
        int port = listening.port();
        Process server = listening.process();
        try (McpServers servers = McpServers.start(List.of(
                McpServerConfig.http("remote", "http://127.0.0.1:" + port + "/mcp")
                        .header("X-Test", "yes").build(),
                McpServerConfig.http("wrongpath", "http://127.0.0.1:" + port + "/nope").build()), McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).singleElement().satisfies(failure -> {
                assertThat(failure.serverName()).isEqualTo("wrongpath");
                assertThat(failure.reason()).startsWith("HTTP 404 from http://127.0.0.1:" + port + "/nope: ")
                        .contains("Cannot POST /nope").doesNotContain("<");
            });
            assertEverythingWorks(registry, "remote");
        } finally {
            server.destroy();
            server.waitFor();
        }
    }

    private static void assertEverythingWorks(ToolRegistry registry, String server) throws Exception {
        List<String> names = registry.tools().stream()
                .filter(t -> t.serverName().equals(server)).map(RegisteredTool::toolName).toList();
        assertThat(names).contains("echo", "get-sum", "get-tiny-image", "get-structured-content",
                "get-resource-reference");
        JsonNode sumSchema = registry.lookup(server, "get-sum").inputSchema();
        assertThat(sumSchema.at("/properties/a/type").asString()).isEqualTo("number");
        assertThat(registry.lookup(server, "echo").description()).isNotBlank();

        ToolChain chain = new ToolChain(registry);
        ToolChainResult echo = chain.execute(List.of(call(server, "echo", Map.of("message", "hello from bellows"))));
        assertThat(succeeded(echo).text()).contains("hello from bellows");

        ToolChainResult sum = chain.execute(List.of(call(server, "get-sum", Map.of("a", 2, "b", 40))));
        assertThat(succeeded(sum).text()).contains("42");

        ToolChainResult image = chain.execute(List.of(call(server, "get-tiny-image", Map.of())));
        assertThat(succeeded(image).result().media()).anySatisfy(m -> {
            assertThat(m.mediaType()).isEqualTo("image/png");
            assertThat(m.size()).isPositive();
        });
        assertThat(image.media()).isNotEmpty();

        ToolChainResult structured = chain.execute(List.of(call(server, "get-structured-content",
                Map.of("location", "New York"))));
        assertThat(succeeded(structured).text()).contains("temperature");

        ToolChainResult resource = chain.execute(List.of(call(server, "get-resource-reference",
                Map.of("resourceType", "Text", "resourceId", 1))));
        assertThat(succeeded(resource).text()).contains("resource ");

        // Bad arguments are caught by the same argument checking as local tools, before the server.
        ToolChainResult bad = chain.execute(List.of(call(server, "get-sum", Map.of("a", "two", "b", 1))));
        assertThat(bad.outcomes().getFirst()).isInstanceOf(ToolCallOutcome.Failed.class);
        assertThat(ReferenceServersTest.text(bad)).contains("a");
    }

    @Test
    void filesystem_server_reads_and_writes_files_in_its_folder(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("notes.txt"), "first line\n", StandardCharsets.UTF_8);
        Set<Long> before = TestServers.descendants();
        try (McpServers servers = McpServers.start(List.of(McpServerConfig.stdio("fs", "node")
                        .args(TestServers.filesystem(), dir.toRealPath().toString()).build()), McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).isEmpty();
            ToolChain chain = new ToolChain(registry);
            String notes = dir.toRealPath().resolve("notes.txt").toString();
            ToolChainResult read = chain.execute(List.of(call("fs", "read_text_file", Map.of("path", notes))));
            assertThat(succeeded(read).text()).contains("first line");

            String created = dir.toRealPath().resolve("created.txt").toString();
            ToolChainResult write = chain.execute(List.of(call("fs", "write_file",
                    Map.of("path", created, "content", "written by an MCP tool"))));
            succeeded(write);
            assertThat(Files.readString(Path.of(created))).isEqualTo("written by an MCP tool");

            // A tool error (isError: true) reaches the model as the server's message.
            ToolChainResult outside = chain.execute(List.of(call("fs", "read_text_file", Map.of("path", "/etc/hostname"))));
            assertThat(outside.outcomes().getFirst()).isInstanceOf(ToolCallOutcome.Failed.class);
            assertThat(ReferenceServersTest.text(outside)).containsIgnoringCase("access denied");
        }
        TestServers.assertNoNewProcesses(before);
    }

    static ToolCall call(String server, String tool, Map<String, Object> arguments) {
        return new ToolCall(server, tool, JSON.valueToTree(arguments));
    }

    /** The observation the default agent's model reads. */
    static String text(ToolChainResult result) {
        return dev.bellows.format.Observation.format(new XmlFormat(), result.outcomes());
    }

    static ToolCallOutcome.Succeeded succeeded(ToolChainResult result) {
        assertThat(result.outcomes()).hasSize(1);
        assertThat(result.outcomes().getFirst()).as(text(result)).isInstanceOf(ToolCallOutcome.Succeeded.class);
        return (ToolCallOutcome.Succeeded) result.outcomes().getFirst();
    }
}
