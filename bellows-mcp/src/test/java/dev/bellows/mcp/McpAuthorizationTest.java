package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.mcp.auth.OAuthException;
import dev.bellows.mcp.auth.OAuthOptions;
import dev.bellows.mcp.auth.TokenStore;
import dev.bellows.testkit.LogCapture;
import dev.bellows.testkit.OAuthMcpServer;
import dev.bellows.tool.ToolRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authorization of remote MCP servers beyond what the conformance suite checks, against a real
 * OAuth-protected MCP server on 127.0.0.1 ({@link OAuthMcpServer}): tokens kept in a 0600 file
 * and reused without authorizing again, refresh (near expiry, and when the server refuses the
 * token), a token never sent to another URL, no secret in any message or log line, a planted
 * symbolic link refused, and a server that needs a login nobody can give failing at once.
 */
class McpAuthorizationTest {

    @TempDir
    Path dir;

    private final List<String> notices = new CopyOnWriteArrayList<>();

    private Path tokenFile() {
        return dir.resolve("data").resolve("mcp-oauth.json");
    }

    private McpClientOptions headless() {
        return new McpClientOptions(new OAuthOptions(TokenStore.file(tokenFile()), OAuthOptions.Browser.FETCH, () -> false,
                notices::add, name -> "needs login: run bellows mcp login " + name), ElicitationHandler.DECLINE);
    }

    /** Starts the servers, lists their tools, stops them; the tool names and failures. */
    private static List<String> listed(List<McpServerConfig> configs, McpClientOptions options, List<String> failures) {
        List<String> names = new ArrayList<>();
        try (McpServers servers = McpServers.start(configs, Map.of(), McpListener.NONE, options);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            registry.tools().forEach(tool -> names.add(tool.serverName() + "/" + tool.toolName()));
            registry.sourceFailures().forEach(failure -> failures.add(failure.serverName() + ": " + failure.reason()));
        }
        return names;
    }

    private static McpServerConfig http(String name, String url) {
        return McpServerConfig.http(name, url).restart(new RestartPolicy(1, java.time.Duration.ofSeconds(1),
                java.time.Duration.ofSeconds(1))).build();
    }

    /** As if the stored token had been obtained an hour ago and had 30 s left. */
    private void expireSoon(OAuthMcpServer server) {
        java.time.Instant now = java.time.Instant.now();
        TokenStore.file(tokenFile()).update(server.uri(), stored -> {
            var t = stored.tokens();
            return stored.withTokens(new dev.bellows.mcp.auth.StoredCredentials.Tokens(t.issuer(), t.tokenEndpoint(),
                    t.resource(), t.accessToken(), t.refreshToken(), now.plusSeconds(30), t.scopes(), now.minusSeconds(3600)));
        });
    }

    @Test
    void a_login_is_kept_in_a_0600_file_and_reused_without_authorizing_again() throws Exception {
        try (OAuthMcpServer server = OAuthMcpServer.start()) {
            List<String> failures = new ArrayList<>();
            assertThat(listed(List.of(http("secure", server.mcpUrl())), headless(), failures)).containsExactly("secure/whoami");
            assertThat(failures).isEmpty();
            assertThat(server.requests("/register")).hasSize(1);
            assertThat(server.requests("/authorize")).hasSize(1);
            assertThat(server.grants()).containsExactly("authorization_code");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile()))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile().getParent())))
                    .isEqualTo("rwx------");
            String stored = Files.readString(tokenFile(), StandardCharsets.UTF_8);
            assertThat(stored).contains(server.mcpUrl()).contains("\"redirect_port\"").contains("offline_access");

            // A new program: the stored token is sent at once; no registration, no authorization.
            int before = server.requests.size();
            assertThat(listed(List.of(http("secure", server.mcpUrl())), headless(), failures)).containsExactly("secure/whoami");
            List<OAuthMcpServer.Request> later = server.requests.subList(before, server.requests.size());
            assertThat(later).extracting(OAuthMcpServer.Request::path).containsOnly("/mcp");
            assertThat(later).allSatisfy(request -> assertThat(request.authorization()).startsWith("Bearer access-"));
        }
    }

    @Test
    void a_token_near_its_expiry_is_refreshed_before_it_is_sent_and_a_refused_one_after_the_401() throws Exception {
        try (OAuthMcpServer server = OAuthMcpServer.start()) {
            List<String> failures = new ArrayList<>();
            listed(List.of(http("secure", server.mcpUrl())), headless(), failures);
            expireSoon(server); // an hour later: 30 s left, within the 60 s margin, refreshed before it is sent
            assertThat(listed(List.of(http("secure", server.mcpUrl())), headless(), failures)).containsExactly("secure/whoami");
            assertThat(server.grants()).containsExactly("authorization_code", "refresh_token");
            OAuthMcpServer.Request refresh = server.requests("/token").get(1);
            assertThat(OAuthMcpServer.form(refresh.body())).containsEntry("resource", server.mcpUrl());
            int firstMcpAfterRefresh = server.requests.indexOf(refresh) + 1;
            assertThat(server.requests.get(firstMcpAfterRefresh).path()).isEqualTo("/mcp");

            server.revokeAccessTokens(); // the server refuses the stored token: 401, then a refresh, no login
            assertThat(listed(List.of(http("secure", server.mcpUrl())), headless(), failures)).containsExactly("secure/whoami");
            assertThat(server.grants()).containsExactly("authorization_code", "refresh_token", "refresh_token");
            assertThat(server.requests("/authorize")).hasSize(1);
            assertThat(failures).isEmpty();
        }
    }

    @Test
    void a_token_is_sent_only_to_the_server_url_it_was_obtained_for() throws Exception {
        try (OAuthMcpServer secure = OAuthMcpServer.start(); OAuthMcpServer other = OAuthMcpServer.open()) {
            List<String> failures = new ArrayList<>();
            List<McpServerConfig> configs = List.of(http("secure", secure.mcpUrl()), http("other", other.mcpUrl()),
                    http("sibling", secure.base() + "/mcp2"));
            listed(configs, headless(), failures);
            listed(configs, headless(), failures); // again, with the token stored
            assertThat(secure.requests("/mcp")).anySatisfy(r -> assertThat(r.authorization()).startsWith("Bearer "));
            assertThat(other.requests).isNotEmpty().allSatisfy(r -> assertThat(r.authorization()).isNull());
            assertThat(secure.requests("/mcp2")).isNotEmpty().allSatisfy(r -> assertThat(r.authorization()).isNull());
        }
    }

    @Test
    void no_token_secret_code_or_verifier_reaches_a_message_a_notice_or_a_log_line() throws Exception {
        try (OAuthMcpServer server = OAuthMcpServer.start(); LogCapture logs = LogCapture.of("dev.bellows.mcp")) {
            List<String> said = new CopyOnWriteArrayList<>();
            McpListener listener = new McpListener() {
                @Override
                public void serverProblem(String s, String reason) {
                    said.add(reason);
                }

                @Override
                public void statusChanged(String s, McpServerStatus status) {
                    said.add(status.describe());
                }
            };
            List<String> failures = new ArrayList<>();
            for (int run = 0; run < 2; run++) { // a login, then a refresh
                if (run == 1) {
                    expireSoon(server);
                }
                try (McpServers servers = McpServers.start(List.of(http("secure", server.mcpUrl()),
                        http("broken", server.base() + "/nothing")), Map.of(), listener, headless());
                     ToolRegistry registry = servers.addTo(new ToolRegistry())) {
                    registry.sourceFailures().forEach(f -> failures.add(f.reason()));
                    said.add(servers.statuses().toString());
                    said.add(servers.sources().toString());
                }
            }
            server.revokeAccessTokens();
            List<String> everything = new ArrayList<>(said);
            everything.addAll(failures);
            everything.addAll(notices);
            logs.lines().forEach(line -> everything.add(line.toString()));
            assertThat(server.grants()).contains("authorization_code", "refresh_token");
            assertThat(server.secrets).hasSizeGreaterThan(4);
            for (String secret : server.secrets) {
                assertThat(everything).noneMatch(text -> text.contains(secret));
            }
        }
    }

    @Test
    void the_token_file_stays_0600_whatever_it_was() throws Exception {
        TokenStore store = TokenStore.file(tokenFile());
        java.net.URI a = java.net.URI.create("https://a.example/mcp");
        store.update(a, stored -> stored.withClient(new dev.bellows.mcp.auth.StoredCredentials.Client("https://as.example",
                "client", null, "none", 1234)));
        Files.setPosixFilePermissions(tokenFile(), PosixFilePermissions.fromString("rw-r--r--"));
        store.update(a, stored -> stored.withClient(new dev.bellows.mcp.auth.StoredCredentials.Client("https://as.example",
                "client-2", null, "none", 1234)));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile()))).isEqualTo("rw-------");
        assertThat(store.read(a).client().clientId()).isEqualTo("client-2");
        assertThat(store.read(java.net.URI.create("https://a.example/other")).isEmpty()).isTrue();
        try (var listing = Files.list(tokenFile().getParent())) {
            assertThat(listing.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("mcp-oauth.json",
                    "mcp-oauth.json.lock"); // no temporary file left behind
        }
    }

    @Test
    void a_symbolic_link_planted_in_place_of_the_token_file_is_refused_and_its_target_left_alone() throws Exception {
        Files.createDirectories(tokenFile().getParent());
        Path target = dir.resolve("target.txt");
        Files.writeString(target, "precious");
        Files.createSymbolicLink(tokenFile(), target);
        TokenStore store = TokenStore.file(tokenFile());
        java.net.URI a = java.net.URI.create("https://a.example/mcp");
        assertThatThrownBy(() -> store.update(a, stored -> stored.withClient(
                new dev.bellows.mcp.auth.StoredCredentials.Client("https://as.example", "c", null, null, 0))))
                .isInstanceOf(OAuthException.class).hasMessageContaining(tokenFile().toString())
                .hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> store.read(a)).isInstanceOf(OAuthException.class);
        assertThat(Files.readString(target)).isEqualTo("precious");

        try (OAuthMcpServer server = OAuthMcpServer.start()) { // a server start says so too, and writes nothing
            List<String> failures = new ArrayList<>();
            listed(List.of(http("secure", server.mcpUrl())), headless(), failures);
            assertThat(failures).singleElement().asString().contains("symbolic link");
            assertThat(Files.readString(target)).isEqualTo("precious");
        }
    }

    @Test
    void without_a_person_a_login_fails_at_once_naming_the_command_and_nothing_reaches_the_authorization_server()
            throws Exception {
        try (OAuthMcpServer server = OAuthMcpServer.start()) {
            McpClientOptions nobody = new McpClientOptions(headless().oauth().withBrowser(OAuthOptions.Browser.SYSTEM),
                    ElicitationHandler.DECLINE);
            List<String> failures = new ArrayList<>();
            try (McpServers servers = McpServers.start(List.of(McpServerConfig.http("secure", server.mcpUrl()).build()),
                    Map.of(), McpListener.NONE, nobody);
                 ToolRegistry registry = servers.addTo(new ToolRegistry())) {
                registry.sourceFailures().forEach(f -> failures.add(f.reason()));
                assertThat(servers.statuses().get("secure")).isInstanceOf(McpServerStatus.Failed.class); // not retried
            }
            assertThat(failures).containsExactly("needs login: run bellows mcp login secure");
            assertThat(server.requests).extracting(OAuthMcpServer.Request::path).containsOnly("/mcp");
            assertThat(notices).isEmpty();
        }
    }

    /**
     * A listener on 127.0.0.1 that counts the connections made to it: a URL with host
     * {@code 0.0.0.0} and its port is not loopback by its text, but a connection to it
     * reaches this listener, so a request that should never have been made is seen here and
     * nothing leaves the machine, even when the check is missing.
     */
    private static final class ConnectionCounter implements AutoCloseable {
        final java.net.ServerSocket socket;
        final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();

        ConnectionCounter() throws java.io.IOException {
            socket = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (java.net.Socket ignored = socket.accept()) {
                        accepted.incrementAndGet();
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            });
        }

        /** A plain-HTTP URL on a host that is not loopback by its text, whose connections reach this listener. */
        String url(String path) {
            return "http://0.0.0.0:" + socket.getLocalPort() + path;
        }

        @Override
        public void close() throws java.io.IOException {
            socket.close();
        }
    }

    @Test
    void a_plain_http_authorization_server_off_loopback_is_refused_before_any_request_to_it() throws Exception {
        try (OAuthMcpServer server = OAuthMcpServer.start(); ConnectionCounter elsewhere = new ConnectionCounter()) {
            server.authorizationServer(elsewhere.url(""));
            List<String> failures = new ArrayList<>();

            assertThat(listed(List.of(http("secure", server.mcpUrl())), headless(), failures)).isEmpty();

            assertThat(failures).singleElement().asString()
                    .contains("the authorization server named by the protected-resource metadata of " + server.mcpUrl())
                    .contains(elsewhere.url("") + " is not an HTTPS URL: refused before any request to it")
                    .contains("requires HTTPS for authorization server endpoints");
            assertThat(elsewhere.accepted).as("connections to the refused authorization server").hasValue(0);
            assertThat(server.requests).extracting(OAuthMcpServer.Request::path)
                    .containsOnly("/mcp", "/.well-known/oauth-protected-resource/mcp");
        }
    }

    @Test
    void authorization_server_metadata_naming_plain_http_endpoints_off_loopback_is_refused_before_registration()
            throws Exception {
        for (String field : List.of("registration_endpoint", "token_endpoint", "authorization_endpoint")) {
            try (OAuthMcpServer server = OAuthMcpServer.start(); ConnectionCounter elsewhere = new ConnectionCounter()) {
                server.metadataField(field, elsewhere.url("/" + field));
                List<String> failures = new ArrayList<>();

                assertThat(listed(List.of(http("secure", server.mcpUrl())), headless(), failures)).isEmpty();

                assertThat(failures).as(field).singleElement().asString()
                        .contains("the " + field + " of the authorization server metadata at " + server.base())
                        .contains(elsewhere.url("/" + field) + " is not an HTTPS URL: refused before any request to it");
                assertThat(elsewhere.accepted).as(field).hasValue(0);
                assertThat(server.requests).as(field).extracting(OAuthMcpServer.Request::path)
                        .doesNotContain("/register", "/authorize", "/token");
            }
        }
    }
}
