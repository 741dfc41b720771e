package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpConfigTest {

    private static final Path DIR = Path.of("/configs");

    @Test
    void reads_stdio_and_http_servers_in_the_common_format() {
        List<McpServerConfig> servers = McpConfig.parse("""
                {"mcpServers": {
                  "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
                                 "env": {"LOG_LEVEL": "warn"}, "cwd": "work", "callTimeoutSeconds": 5},
                  "remote": {"type": "http", "url": "http://127.0.0.1:8931/mcp", "headers": {"Authorization": "Bearer s3cret"}},
                  "off": {"command": "nothing", "disabled": true}
                }, "otherClientSetting": 1}
                """, "servers.json", DIR);
        assertThat(servers).hasSize(2);
        McpServerConfig.Stdio stdio = (McpServerConfig.Stdio) servers.get(0);
        assertThat(stdio.name()).isEqualTo("everything");
        assertThat(stdio.command()).isEqualTo("npx");
        assertThat(stdio.args()).containsExactly("-y", "@modelcontextprotocol/server-everything");
        assertThat(stdio.env()).isEqualTo(Map.of("LOG_LEVEL", "warn"));
        assertThat(stdio.workingDirectory()).isEqualTo(DIR.resolve("work"));
        assertThat(stdio.callTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(stdio.startupTimeout()).isEqualTo(McpServerConfig.DEFAULT_STARTUP_TIMEOUT);
        McpServerConfig.StreamableHttp http = (McpServerConfig.StreamableHttp) servers.get(1);
        assertThat(http.url()).isEqualTo(URI.create("http://127.0.0.1:8931/mcp"));
        assertThat(http.headers()).containsEntry("Authorization", "Bearer s3cret");
        assertThat(http.toString()).doesNotContain("s3cret").contains("Authorization");
        assertThat(stdio.toString()).doesNotContain("warn");
    }

    @Test
    void errors_name_the_server_and_the_key_and_never_the_value() {
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"args\": \"-y s3cret\"}}}",
                "servers.json: mcpServers.x: \"args\" must be an array of strings, not a string");
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"args\": [1]}}}",
                "servers.json: mcpServers.x: \"args\" must be an array of strings; item 1 is a number");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"http://h/mcp\", \"headers\": {\"Authorization\": 5}}}}",
                "servers.json: mcpServers.x: \"headers\".Authorization must be a string, not a number");
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"url\": \"http://h\"}}}",
                "servers.json: mcpServers.x must have exactly one of \"command\" (a local server) and \"url\" (a remote one)");
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"comand\": \"b\"}}}",
                "servers.json: mcpServers.x: unknown key \"comand\"");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"ftp://h/s3cret\"}}}",
                "servers.json: mcpServers.x: server \"x\": the url must be an http:// or https:// URL");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"http://h/mcp\", \"type\": \"sse\"}}}",
                "is not supported; use the server's Streamable HTTP endpoint");
        assertError("{\"mcpServers\": {\"local\": {\"command\": \"a\"}}}",
                "server name \"local\" is reserved");
        assertError("{\"mcpServers\": {\"a b\": {\"command\": \"a\"}}}",
                "server name \"a b\" may use only letters, digits");
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"startupTimeoutSeconds\": 0}}}",
                "\"startupTimeoutSeconds\" must be a whole number of seconds of at least 1");
        assertError("{\"mcpServers\": []}", "servers.json: mcpServers must be an object of servers by name, not an array");
        assertError("{\"servers\": {}}", "servers.json: expected a JSON object with \"mcpServers\"");
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"s3cret", "servers.json: invalid JSON at line 1");
    }

    @Test
    void the_java_builder_checks_what_it_builds() {
        assertThatThrownBy(() -> McpServerConfig.stdio("x", " ").build()).hasMessageContaining("the command is empty");
        assertThatThrownBy(() -> McpServerConfig.http("x", "not a url").build()).hasMessageContaining("url");
        assertThatThrownBy(() -> McpServerConfig.stdio("x", "a").callTimeout(Duration.ZERO).build())
                .hasMessageContaining("timeouts must be positive");
        McpServerConfig.Stdio built = McpServerConfig.stdio("x", "a").args("b").env("K", "V").build();
        assertThat(built.args()).containsExactly("b");
        assertThatThrownBy(() -> built.args().add("c")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void servers_with_the_same_name_are_refused() {
        McpServerConfig a = McpServerConfig.stdio("same", "a").build();
        assertThatThrownBy(() -> McpServers.start(List.of(a, a), McpListener.NONE))
                .isInstanceOf(McpConfigException.class).hasMessageContaining("two MCP servers are named \"same\"");
    }

    @Test
    void back_off_is_immediate_after_one_stop_then_doubles_up_to_thirty_seconds() {
        RestartPolicy policy = RestartPolicy.DEFAULT;
        assertThat(McpToolSource.backoff(policy, 1)).isEqualTo(Duration.ZERO);
        assertThat(McpToolSource.backoff(policy, 2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(McpToolSource.backoff(policy, 3)).isEqualTo(Duration.ofSeconds(2));
        assertThat(McpToolSource.backoff(policy, 7)).isEqualTo(Duration.ofSeconds(30));
        assertThat(McpToolSource.backoff(policy, 100)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void a_failed_start_waits_the_first_delay_then_doubles_up_to_the_cap_within_the_attempts() {
        RestartPolicy policy = new RestartPolicy(4, Duration.ofMillis(250), Duration.ofSeconds(1));
        assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofMillis(250));
        assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofMillis(500));
        assertThat(policy.delayAfter(3)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.exhaustedBy(3)).isFalse();
        assertThat(policy.exhaustedBy(4)).isTrue();
        assertThat(RestartPolicy.NEVER.exhaustedBy(1)).isTrue();
        assertThat(RestartPolicy.DEFAULT).isEqualTo(new RestartPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(30)));
        assertThatThrownBy(() -> new RestartPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .hasMessageContaining("at least 1 attempt");
        assertThatThrownBy(() -> new RestartPolicy(2, Duration.ZERO, Duration.ofSeconds(1)))
                .hasMessageContaining("must be positive");
        assertThatThrownBy(() -> new RestartPolicy(2, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("at least its first delay");
    }

    @Test
    void the_restart_policy_is_read_from_the_config_with_defaults_for_what_is_left_out() {
        List<McpServerConfig> servers = McpConfig.parse("""
                {"mcpServers": {
                  "a": {"command": "a", "startAttempts": 3, "retryDelaySeconds": 0.25, "maxRetryDelaySeconds": 2},
                  "b": {"url": "http://127.0.0.1:1/mcp", "startAttempts": 1},
                  "c": {"command": "c", "retryDelaySeconds": 45},
                  "d": {"command": "d"}
                }}
                """, "servers.json", DIR);
        assertThat(servers.get(0).restart()).isEqualTo(new RestartPolicy(3, Duration.ofMillis(250), Duration.ofSeconds(2)));
        assertThat(servers.get(1).restart().maxAttempts()).isEqualTo(1);
        assertThat(servers.get(2).restart()).isEqualTo(new RestartPolicy(5, Duration.ofSeconds(45), Duration.ofSeconds(45)));
        assertThat(servers.get(3).restart()).isEqualTo(RestartPolicy.DEFAULT);
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"startAttempts\": 0}}}",
                "servers.json: mcpServers.x: \"startAttempts\" must be a whole number of at least 1");
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"retryDelaySeconds\": \"s3cret\"}}}",
                "\"retryDelaySeconds\" must be a number of seconds between 0.001 and 86400");
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"retryDelaySeconds\": 5, \"maxRetryDelaySeconds\": 1}}}",
                "\"maxRetryDelaySeconds\" must be at least \"retryDelaySeconds\"");
    }

    /** The example of docs/mcp.md (and of the command line's contract), as written there. */
    @Test
    void reads_the_oauth_settings_of_the_documented_example() {
        List<McpServerConfig> servers = McpConfig.parse("""
                {"mcpServers": {
                  "linear": {"url": "https://mcp.linear.app/mcp"},
                  "slack":  {"url": "https://mcp.slack.com/mcp",
                             "oauth": {"clientId": "123.456", "clientSecret": "...", "callbackPort": 8976,
                                       "scopes": "channels:read chat:write"}},
                  "ci-bot": {"url": "https://mcp.example.com/mcp",
                             "oauth": {"grantType": "client_credentials", "clientId": "ci-bot",
                                       "privateKeyFile": "ci-bot.pem"}},
                  "corp":   {"url": "https://mcp.corp.example/mcp",
                             "oauth": {"grantType": "jwt_bearer", "clientId": "bellows", "clientSecret": "...",
                                       "idp": {"tokenEndpoint": "https://idp.corp.example/oauth2/token",
                                               "clientId": "bellows-at-idp", "idTokenFile": "~/.corp/id_token"}}}
                }}
                """, "servers.json", DIR);
        var linear = (McpServerConfig.StreamableHttp) servers.get(0);
        assertThat(linear.oauth()).isEqualTo(dev.bellows.mcp.auth.OAuthConfig.DISCOVER);
        assertThat(linear.usesOAuth()).isTrue();
        var slack = ((McpServerConfig.StreamableHttp) servers.get(1)).oauth();
        assertThat(slack.clientId()).isEqualTo("123.456");
        assertThat(slack.clientSecret().reveal()).isEqualTo("...");
        assertThat(slack.callbackPort()).isEqualTo(8976);
        assertThat(slack.scopes()).containsExactly("channels:read", "chat:write");
        assertThat(slack.grantType()).isEqualTo(dev.bellows.mcp.auth.OAuthConfig.GrantType.AUTHORIZATION_CODE);
        var bot = ((McpServerConfig.StreamableHttp) servers.get(2)).oauth();
        assertThat(bot.grantType()).isEqualTo(dev.bellows.mcp.auth.OAuthConfig.GrantType.CLIENT_CREDENTIALS);
        assertThat(bot.privateKeyFile()).isEqualTo(DIR.resolve("ci-bot.pem"));
        var corp = ((McpServerConfig.StreamableHttp) servers.get(3)).oauth();
        assertThat(corp.grantType()).isEqualTo(dev.bellows.mcp.auth.OAuthConfig.GrantType.JWT_BEARER);
        assertThat(corp.idp().tokenEndpoint()).isEqualTo(URI.create("https://idp.corp.example/oauth2/token"));
        assertThat(corp.idp().clientId()).isEqualTo("bellows-at-idp");
        assertThat(corp.idp().idTokenFile()).isEqualTo(Path.of(System.getProperty("user.home"), ".corp", "id_token"));
        assertThat(servers.get(1).toString() + slack + corp).doesNotContain("...");
    }

    @Test
    void oauth_errors_name_the_server_and_the_key_and_never_the_value() {
        assertError("{\"mcpServers\": {\"x\": {\"command\": \"a\", \"oauth\": {}}}}",
                "servers.json: mcpServers.x: \"oauth\" belongs to a server with a \"url\"");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"clientSecrets\": \"s3cret\"}}}}",
                "servers.json: mcpServers.x.oauth: unknown key \"clientSecrets\"");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": \"s3cret\"}}}",
                "servers.json: mcpServers.x.oauth must be an object, not a string");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"clientSecret\": 5}}}}",
                "servers.json: mcpServers.x.oauth: \"clientSecret\" must be a string, not a number");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"grantType\": \"s3cret\"}}}}",
                "servers.json: mcpServers.x.oauth: unknown \"grantType\"");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"grantType\": "
                        + "\"client_credentials\", \"clientId\": \"c\"}}}}",
                "servers.json: mcpServers.x.oauth: \"grantType\" client_credentials needs \"clientId\" with \"clientSecret\"");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"clientSecret\": \"s3cret\"}}}}",
                "servers.json: mcpServers.x.oauth: \"clientSecret\" needs \"clientId\"");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"callbackPort\": 70000}}}}",
                "servers.json: mcpServers.x.oauth: \"callbackPort\" must be a port number");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"grantType\": \"jwt_bearer\", "
                        + "\"clientId\": \"c\", \"idp\": {\"tokenEndpoint\": \"https://i/t\", \"clientId\": \"s3cret\"}}}}}",
                "servers.json: mcpServers.x.oauth.idp: \"idTokenFile\" is missing");
        assertError("{\"mcpServers\": {\"x\": {\"url\": \"https://h/mcp\", \"oauth\": {\"clientMetadataUrl\": "
                        + "\"http://h/s3cret.json\"}}}}",
                "servers.json: mcpServers.x.oauth: \"clientMetadataUrl\" must be an https:// URL");
    }

    private static void assertError(String json, String message) {
        assertThatThrownBy(() -> McpConfig.parse(json, "servers.json", DIR))
                .isInstanceOf(McpConfigException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
    }
}
