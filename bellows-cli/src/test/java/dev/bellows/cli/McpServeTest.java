package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.NpmPackages;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One Bellows agent using others over MCP, as docs/agents.md ("Agents offered over MCP") shows
 * it: {@code bellows serve --mcp} with the page's team.json (in this JVM, a mock model), and
 * {@code bellows run --agent lead} with the page's lead.json, whose MCP server is that server
 * (Bellows' own MCP client), on another mock model.
 */
class McpServeTest {

    private static final Pattern JSON_BLOCK = Pattern.compile("(?s)```json\\n(.*?)```");
    private static final String DOC_URL = "http://127.0.0.1:8931/mcp";

    @TempDir
    Path dir;

    /** The page's section on MCP, and its two config files: the team's, the lead's. */
    private static List<String> pageConfigs() throws Exception {
        String page = Files.readString(NpmPackages.repoRoot().resolve("docs/agents.md"), StandardCharsets.UTF_8);
        String section = page.substring(page.indexOf("## Agents offered over MCP"));
        List<String> blocks = new ArrayList<>();
        Matcher block = JSON_BLOCK.matcher(section);
        while (block.find()) {
            blocks.add(block.group(1));
        }
        assertThat(blocks).hasSize(2);
        return blocks;
    }

    private static String call(String server, String tool, String arguments) {
        return "<tool>{" + (server == null ? "" : "\"server_name\": \"" + server + "\", ") + "\"tool_name\": \"" + tool
                + "\", \"arguments\": " + arguments + "}</tool>";
    }

    /** {@code bellows serve ARGS} in this JVM until the returned handle is closed. */
    private AutoCloseable serve(Map<String, String> env, AtomicReference<String> url, String... args) throws Exception {
        ServeInProcess server = ServeInProcess.start(dir, env, args);
        url.set(server.url());
        return server;
    }

    @Test
    void aBellowsAgentUsesAnotherOverMcp() throws Exception {
        List<String> configs = pageConfigs();
        Path team = dir.resolve("team.json");
        Files.writeString(team, configs.get(0));
        String token = Cli.json(configs.get(1)).at("/mcpServers/team/headers/Authorization").asString()
                .substring("Bearer ".length());
        MockScript teamTurns = MockScript.of(MockTurn.content(call(null, "task_completion",
                "{\"result\": \"100 C at sea level\"}")));
        MockScript leadTurns = MockScript.of(
                MockTurn.content(call("team", "researcher", "{\"task\": \"When does water boil at sea level?\"}")),
                MockTurn.content(call(null, "task_completion",
                        "{\"result\": \"Water boils at 100 C at sea level, says the researcher.\"}")));
        try (MockLlmServer teamModel = MockLlmServer.start(teamTurns);
             MockLlmServer leadModel = MockLlmServer.start(leadTurns)) {
            AtomicReference<String> url = new AtomicReference<>();
            try (AutoCloseable server = serve(Map.of(ServeCommand.TOKEN_ENV, token), url, "serve", "--mcp",
                    "--config", team.toString(), "--port", "0", "--base-url", teamModel.baseUrl().toString(),
                    "--model", "mock", "--data-dir", dir.resolve("team-data").toString())) {
                Path lead = dir.resolve("lead.json");
                Files.writeString(lead, configs.get(1).replace(DOC_URL, url.get() + "/mcp"));
                Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.sigint(), false), "run", "--config",
                        lead.toString(), "--agent", "lead", "--base-url", leadModel.baseUrl().toString(), "--model",
                        "mock", "--data-dir", dir.resolve("lead-data").toString(), "When does water boil at sea level?");
                assertThat(run.status()).as(run.err()).isZero();
                assertThat(run.out()).contains("Water boils at 100 C at sea level, says the researcher.");
                // the researcher ran on the team's model with its own instructions and the lead's task
                assertThat(teamModel.requests()).hasSize(1);
                String asked = teamModel.requests().getFirst().body().toString();
                assertThat(asked).contains("You find facts and answer with them.", "When does water boil at sea level?");
                // and the lead's model read its answer as the tool's result
                assertThat(leadModel.requests()).hasSize(2);
                assertThat(leadModel.requests().get(1).body().toString()).contains("100 C at sea level");
                // the lead's model was offered both agents of the team as tools
                assertThat(leadModel.requests().getFirst().body().toString()).contains("researcher", "writer");
                assertThat(run.out() + run.err()).doesNotContain(token);
            }
        }
    }

    @Test
    void withNoAgentsConfiguredTheCommandLinesAgentIsTheToolBellows() throws Exception {
        MockScript turns = MockScript.of(MockTurn.content(call(null, "task_completion", "{\"result\": \"42\"}")));
        try (MockLlmServer model = MockLlmServer.start(turns)) {
            AtomicReference<String> url = new AtomicReference<>();
            try (AutoCloseable server = serve(Map.of(), url, "serve", "--mcp", "--port", "0", "--base-url",
                    model.baseUrl().toString(), "--model", "mock", "--data-dir", dir.resolve("data").toString())) {
                Path config = dir.resolve("mcp.json");
                Files.writeString(config, "{\"mcpServers\": {\"self\": {\"url\": \"" + url.get() + "/mcp\"}}}");
                Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.sigint(), false), "tools", "--mcp-config",
                        config.toString(), "--data-dir", dir.resolve("client").toString(), "--call", "self/bellows",
                        "--args", "{\"task\": \"What is six times seven?\"}");
                assertThat(run.status()).as(run.err()).isZero();
                assertThat(run.out()).contains("42");
                assertThat(model.requests().getFirst().body().toString()).contains("What is six times seven?");
            }
        }
    }

    /** A workflow of the config file is a tool too: Bellows' MCP client lists it and calls it. */
    @Test
    void aConfiguredWorkflowIsAToolTooThatRunsItsAgents() throws Exception {
        Path team = dir.resolve("team.json");
        Files.writeString(team, """
                {"agents": {
                  "researcher": {"instructions": "You find facts."},
                  "writer": {"instructions": "You write."},
                  "pipeline": {"sequence": ["researcher", "writer"]}
                }}""");
        MockScript turns = MockScript.of(MockTurn.content(call(null, "task_completion", "{\"result\": \"tea is a leaf\"}")),
                MockTurn.content(call(null, "task_completion", "{\"result\": \"A poem: tea is a leaf\"}")));
        try (MockLlmServer model = MockLlmServer.start(turns)) {
            AtomicReference<String> url = new AtomicReference<>();
            try (AutoCloseable server = serve(Map.of(), url, "serve", "--mcp", "--config", team.toString(), "--port",
                    "0", "--base-url", model.baseUrl().toString(), "--model", "mock", "--data-dir",
                    dir.resolve("data").toString())) {
                Path config = dir.resolve("mcp.json");
                Files.writeString(config, "{\"mcpServers\": {\"team\": {\"url\": \"" + url.get() + "/mcp\"}}}");
                Host host = new Host(Map.of(), dir, Interrupts.sigint(), false);
                Cli.Run listed = Cli.run(host, "tools", "--mcp-config", config.toString(), "--data-dir",
                        dir.resolve("client").toString());
                assertThat(listed.status()).as(listed.err()).isZero();
                assertThat(listed.out()).contains("pipeline", "Gives a task to the agents researcher, then writer");

                Cli.Run run = Cli.run(host, "tools", "--mcp-config", config.toString(), "--data-dir",
                        dir.resolve("client").toString(), "--call", "team/pipeline", "--args",
                        "{\"task\": \"a poem about tea\"}");
                assertThat(run.status()).as(run.err()).isZero();
                assertThat(run.out()).contains("A poem: tea is a leaf");
                assertThat(model.requests()).hasSize(2);
                assertThat(model.requests().get(0).body().toString()).contains("You find facts.", "a poem about tea");
                assertThat(model.requests().get(1).body().toString()).contains("You write.", "tea is a leaf");
            }
        }
    }

    @Test
    void mcpOffersTheConfigFilesAgentsNotOneChosenWithAgent() throws Exception {
        Path team = dir.resolve("team.json");
        Files.writeString(team, pageConfigs().get(0));
        Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.sigint(), false), "serve", "--mcp", "--config",
                team.toString(), "--agent", "researcher", "--model", "mock", "--data-dir", dir.resolve("d").toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--agent researcher");
    }
}
