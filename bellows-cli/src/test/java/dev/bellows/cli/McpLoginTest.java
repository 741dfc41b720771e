package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.OAuthMcpServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows mcp login / logout} and the other commands with a server that needs OAuth, a
 * real one on 127.0.0.1 ({@link OAuthMcpServer}): without a terminal a command fails at once
 * with the login command to run; {@code mcp login} with {@code BELLOWS_OAUTH_BROWSER=fetch}
 * logs in; the commands after it use the stored token; {@code logout} forgets it. No token,
 * secret or code appears in any output.
 */
class McpLoginTest {

    @TempDir
    Path dir;

    private final List<Cli.Run> runs = new ArrayList<>();

    private Cli.Run run(Map<String, String> extra, String... args) {
        Map<String, String> env = new HashMap<>(Map.of("PATH", System.getenv("PATH"),
                "BELLOWS_DATA_DIR", dir.resolve("data").toString()));
        env.putAll(extra);
        Cli.Run run = Cli.run(new Host(env, dir, Interrupts.NONE, false), args);
        runs.add(run);
        return run;
    }

    private Cli.Run run(String... args) {
        return run(Map.of(), args);
    }

    private static final Map<String, String> FETCH = Map.of("BELLOWS_OAUTH_BROWSER", "fetch");

    @Test
    void login_is_needed_without_a_terminal_then_login_logs_in_the_token_is_used_and_logout_forgets_it() throws IOException {
        try (OAuthMcpServer server = OAuthMcpServer.start(); OAuthMcpServer open = OAuthMcpServer.open()) {
            Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"secure\": {\"url\": \"" + server.mcpUrl()
                    + "\", \"startAttempts\": 3}, \"open\": {\"url\": \"" + open.mcpUrl() + "\"}, "
                    + "\"files\": {\"command\": \"true\"}}}");

            Cli.Run needs = run("tools", "--mcp-config", "mcp.json");
            assertThat(needs.status()).isEqualTo(1);
            assertThat(needs.err()).contains("MCP server \"secure\" failed to start: needs login: run bellows mcp login secure");
            assertThat(server.requests).extracting(OAuthMcpServer.Request::path).containsOnly("/mcp");
            assertThat(server.requests("/mcp")).hasSize(1); // not retried

            Cli.Run login = run(FETCH, "mcp", "login", "secure", "--mcp-config", "mcp.json");
            assertThat(login.status()).as(login.err()).isZero();
            assertThat(login.out()).isEqualTo("logged in to secure\n");
            Path tokens = dir.resolve("data").resolve("mcp-oauth.json");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokens))).isEqualTo("rw-------");
            assertThat(server.requests("/authorize")).hasSize(1);

            Cli.Run listed = run("tools", "--mcp-config", "mcp.json");
            assertThat(listed.out()).contains("secure/whoami").contains("open/whoami");
            assertThat(listed.status()).as(listed.err()).isEqualTo(1); // "files" (the command true) is no MCP server
            assertThat(server.requests("/authorize")).hasSize(1);

            Cli.Run again = run(FETCH, "mcp", "login", "secure", "--mcp-config", "mcp.json");
            assertThat(again.out()).isEqualTo("logged in to secure\n");
            assertThat(server.requests("/authorize")).hasSize(2); // tokens dropped, a new login
            assertThat(server.requests("/register")).hasSize(1); // the registration kept

            assertThat(run(FETCH, "mcp", "login", "open", "--mcp-config", "mcp.json").out()).isEqualTo("open needs no login\n");
            assertThat(open.requests).allSatisfy(r -> assertThat(r.authorization()).isNull());

            Cli.Run logout = run("mcp", "logout", "secure", "--mcp-config", "mcp.json");
            assertThat(logout.status()).isZero();
            assertThat(logout.out()).isEqualTo("logged out of secure\n");
            assertThat(Files.readString(tokens)).doesNotContain(server.mcpUrl());
            assertThat(run("mcp", "logout", "secure", "--mcp-config", "mcp.json").out())
                    .isEqualTo("nothing stored for secure\n");
            assertThat(run("tools", "--mcp-config", "mcp.json").err()).contains("needs login: run bellows mcp login secure");

            for (Cli.Run each : runs) {
                for (String secret : server.secrets) {
                    assertThat(each.out() + each.err()).doesNotContain(secret);
                }
            }
        }
    }

    @Test
    void login_names_what_is_wrong_with_exit_2_for_usage_and_1_for_a_failed_login() throws IOException {
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"files\": {\"command\": \"true\"}, "
                + "\"gone\": {\"url\": \"http://127.0.0.1:9/mcp\"}}}");
        Cli.Run unknown = run("mcp", "login", "nosuch", "--mcp-config", "mcp.json");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).isEqualTo("bellows mcp login: no MCP server named \"nosuch\" is configured (servers: "
                + "files, gone)\n");
        Cli.Run local = run("mcp", "login", "files", "--mcp-config", "mcp.json");
        assertThat(local.status()).isEqualTo(2);
        assertThat(local.err()).contains("is a local server (\"command\"): it needs no login");
        Cli.Run browser = run(Map.of("BELLOWS_OAUTH_BROWSER", "firefox"), "mcp", "login", "gone", "--mcp-config", "mcp.json");
        assertThat(browser.status()).isEqualTo(2);
        assertThat(browser.err()).contains("BELLOWS_OAUTH_BROWSER: unknown value (system, none or fetch)");
        Cli.Run gone = run(FETCH, "mcp", "login", "gone", "--mcp-config", "mcp.json");
        assertThat(gone.status()).isEqualTo(1);
        assertThat(gone.err()).startsWith("bellows mcp login: gone: could not connect to http://127.0.0.1:9/mcp");
    }
}
