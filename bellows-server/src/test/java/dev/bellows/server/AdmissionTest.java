package dev.bellows.server;

import static dev.bellows.server.AgentServerTest.addingScript;
import static dev.bellows.server.ServerFixture.runInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.JsonNode;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.Background;
import dev.bellows.testkit.MockScript;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the server refuses before it reads a body (issue 31): a Host that is not its own, a page of
 * another origin, a body a page can send without asking first; and what it keeps serving (its
 * own origin, allowed hosts and origins, clients that send no Origin). Raw HTTP on a socket, since
 * Java's client will not send a Host of the test's choosing.
 */
class AdmissionTest {

    /** A response read from a raw connection: status code, headers (lower-case names) and body. */
    record Raw(int status, Map<String, String> headers, String body) {
        JsonNode json() throws IOException {
            return ServerFixture.MAPPER.readTree(body);
        }
    }

    static Raw raw(ServerFixture fixture, String method, String path, Map<String, String> headers, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
        Map<String, String> all = new java.util.LinkedHashMap<>();
        all.put("Host", "127.0.0.1:" + fixture.http.port());
        all.putAll(headers);
        all.put("Connection", "close");
        if (!body.isEmpty()) {
            all.put("Content-Length", Integer.toString(bytes.length));
        }
        all.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        try (Socket socket = new Socket("127.0.0.1", fixture.http.port())) {
            socket.setSoTimeout(60_000);       // a hang guard, not a measure
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int end = response.indexOf("\r\n\r\n");
            String[] lines = response.substring(0, end).split("\r\n");
            Map<String, String> fields = new HashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                fields.put(lines[i].substring(0, colon).toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
            }
            return new Raw(Integer.parseInt(lines[0].split(" ")[1]), fields, response.substring(end + 4));
        }
    }

    private static Map<String, String> json(String... more) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        for (int i = 0; i < more.length; i += 2) {
            headers.put(more[i], more[i + 1]);
        }
        return headers;
    }

    @Test
    void aHostThatIsNotLoopbackOrAllowedIsRefusedBeforeAnyRun() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> b.allowHosts(List.of("agents.internal")))) {
            String input = runInput("t1", "What is 40 + 2?").toString();
            for (String host : List.of("attacker.example", "attacker.example:" + fixture.http.port(), "127.0.0.1.nip.io",
                    "localhost.attacker.example", "10.0.0.1")) {
                Raw refused = raw(fixture, "POST", "/agui", json("Host", host), input);
                assertThat(refused.status()).as(host).isEqualTo(403);
                assertThat(refused.headers().get("content-type")).isEqualTo("application/json");
                assertThat(refused.json().at("/error/param").asString()).isEqualTo("Host");
                assertThat(refused.json().at("/error/message").asString()).contains("--allow-host");
            }
            assertThat(raw(fixture, "GET", "/", Map.of("Host", "attacker.example"), "").status()).isEqualTo(403);
            assertThat(fixture.provider.turnsTaken()).isZero();

            for (String host : List.of("localhost:" + fixture.http.port(), "127.0.0.1", "127.5.6.7:80", "[::1]:1234",
                    "LOCALHOST", "agents.internal", "Agents.Internal:8443")) {
                assertThat(raw(fixture, "GET", "/health", Map.of("Host", host), "").status()).as(host).isEqualTo(200);
            }
            Raw run = raw(fixture, "POST", "/v1/chat/completions", json("Host", "agents.internal:443"),
                    "{\"messages\": [{\"role\": \"user\", \"content\": \"What is 40 + 2?\"}]}");
            assertThat(run.status()).isEqualTo(200);
            assertThat(fixture.provider.turnsTaken()).isEqualTo(3);
        }
    }

    @Test
    void aPageOfAnotherOriginIsRefusedItsOwnAndAllowedOnesPass() throws Exception {
        MockScript twoRuns = MockScript.of(ServerFixture.turn(ServerFixture.call("task_completion", "{\"result\": \"42\"}")),
                ServerFixture.turn(ServerFixture.call("task_completion", "{\"result\": \"43\"}")));
        try (ServerFixture fixture = new ServerFixture(twoRuns, b -> b.allowOrigins(List.of("https://app.example.com")))) {
            String input = runInput("t1", "What is 40 + 2?").toString();
            for (String origin : List.of("http://evil.example", "null", "http://localhost:18002",
                    "http://127.0.0.1:" + (fixture.http.port() + 1), "https://app.example.com:8443")) {
                Raw refused = raw(fixture, "POST", "/agui", json("Origin", origin), input);
                assertThat(refused.status()).as(origin).isEqualTo(403);
                assertThat(refused.json().at("/error/param").asString()).isEqualTo("Origin");
                assertThat(refused.json().at("/error/message").asString()).contains("--allow-origin " + origin);
                assertThat(refused.headers()).doesNotContainKey("access-control-allow-origin");
            }
            // a no-cors fetch from another site sends its Origin; a request without one that says so is refused too
            Raw crossSite = raw(fixture, "POST", "/agui", json("Sec-Fetch-Site", "cross-site"), input);
            assertThat(crossSite.status()).isEqualTo(403);
            assertThat(crossSite.json().at("/error/param").asString()).isEqualTo("Sec-Fetch-Site");
            assertThat(fixture.provider.turnsTaken()).isZero();

            // the server's own page
            Raw own = raw(fixture, "POST", "/agui", json("Origin", "http://127.0.0.1:" + fixture.http.port(),
                    "Sec-Fetch-Site", "same-origin"), input);
            assertThat(own.status()).isEqualTo(200);
            assertThat(own.headers()).doesNotContainKey("access-control-allow-origin");
            assertThat(own.body()).contains("RUN_FINISHED");
            assertThat(fixture.provider.turnsTaken()).isEqualTo(1);

            // an allowed origin: its preflight and its request, with the CORS headers that let it read the answer
            Raw preflight = raw(fixture, "OPTIONS", "/agui", Map.of("Origin", "https://app.example.com",
                    "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,authorization"), "");
            assertThat(preflight.status()).isEqualTo(204);
            assertThat(preflight.headers()).containsEntry("access-control-allow-origin", "https://app.example.com")
                    .containsEntry("vary", "Origin");
            assertThat(preflight.headers().get("access-control-allow-methods")).contains("POST");
            assertThat(preflight.headers().get("access-control-allow-headers")).contains("Content-Type", "Authorization");
            Raw allowed = raw(fixture, "POST", "/agui", json("Origin", "https://app.example.com"),
                    runInput("t2", "What is 40 + 2?").toString());
            assertThat(allowed.status()).isEqualTo(200);
            assertThat(allowed.headers()).containsEntry("access-control-allow-origin", "https://app.example.com");
            assertThat(allowed.body()).contains("RUN_FINISHED");
            assertThat(fixture.provider.turnsTaken()).isEqualTo(2);

            Raw otherPreflight = raw(fixture, "OPTIONS", "/agui", Map.of("Origin", "http://evil.example",
                    "Access-Control-Request-Method", "POST"), "");
            assertThat(otherPreflight.status()).isEqualTo(403);
            assertThat(otherPreflight.headers()).doesNotContainKey("access-control-allow-origin");
        }
    }

    @Test
    void theJsonEndpointsTakeOnlyJsonBodies() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> { })) {
            String input = runInput("t1", "What is 40 + 2?").toString();
            String completion = "{\"messages\": [{\"role\": \"user\", \"content\": \"What is 40 + 2?\"}]}";
            for (String type : List.of("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                    "multipart/form-data; boundary=x", "")) {
                Map<String, String> headers = type.isEmpty() ? Map.of() : Map.of("Content-Type", type);
                for (Map.Entry<String, String> call : Map.of("/agui", input, "/v1/chat/completions", completion).entrySet()) {
                    Raw refused = raw(fixture, "POST", call.getKey(), headers, call.getValue());
                    assertThat(refused.status()).as(call.getKey() + " " + type).isEqualTo(415);
                    assertThat(refused.json().at("/error/param").asString()).isEqualTo("Content-Type");
                    assertThat(refused.json().at("/error/message").asString()).contains("application/json");
                }
            }
            assertThat(fixture.provider.turnsTaken()).isZero();
            assertThat(raw(fixture, "POST", "/agui", Map.of("Content-Type", "application/json; charset=utf-8"), input).status())
                    .isEqualTo(200);
            // a JSON type of a protocol's own (A2A's application/a2a+json) is no type a page sends unasked either
            assertThat(raw(fixture, "POST", "/agui", Map.of("Content-Type", "application/a2a+json"),
                    runInput("t2", "What is 40 + 2?").toString()).status()).isEqualTo(200);
        }
    }

    /** An endpoint mounted on the server: behind its gate, the token asked where the endpoint does not open the path. */
    @Test
    void aMountedEndpointIsServedBehindTheSameGate() throws Exception {
        List<String> served = new java.util.concurrent.CopyOnWriteArrayList<>();
        Endpoint endpoint = new Endpoint() {
            @Override
            public boolean serves(String path) {
                return path.startsWith("/extra/");
            }

            @Override
            public boolean open(String path) {
                return path.equals("/extra/open");
            }

            @Override
            public void handle(ServerExchange exchange) throws java.io.IOException {
                served.add(exchange.method() + " " + exchange.path() + " " + exchange.query().orElse(""));
                byte[] body = "{\"ok\":true}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                try (java.io.OutputStream out = exchange.respond(200, Map.of("Content-Type", "application/json",
                        "Content-Length", String.valueOf(body.length)))) {
                    out.write(body);
                }
            }
        };
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> b.authToken("tok").mount(endpoint))) {
            assertThat(raw(fixture, "GET", "/extra/open?a=1", Map.of(), "").status()).isEqualTo(200);
            assertThat(raw(fixture, "GET", "/extra/closed", Map.of(), "").status()).isEqualTo(401);
            assertThat(raw(fixture, "GET", "/extra/closed", Map.of("Authorization", "Bearer tok"), "").status()).isEqualTo(200);
            assertThat(raw(fixture, "POST", "/extra/closed", Map.of("Authorization", "Bearer tok", "Content-Type",
                    "text/plain"), "{}").status()).isEqualTo(415);
            assertThat(raw(fixture, "GET", "/extra/open", Map.of("Origin", "http://evil.example"), "").status()).isEqualTo(403);
            assertThat(raw(fixture, "GET", "/nowhere", Map.of("Authorization", "Bearer tok"), "").status()).isEqualTo(404);
            assertThat(served).containsExactly("GET /extra/open a=1", "GET /extra/closed ");
        }
    }

    @Test
    void jsonPastTheParsersLimitsIsA400NotAServerError() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> { })) {
            String deep = "[".repeat(1_500) + "]".repeat(1_500);
            String longNumber = "{\"threadId\": " + "9".repeat(1_500) + "}";
            for (String path : List.of("/agui", "/v1/chat/completions")) {
                for (String body : List.of(deep, longNumber)) {
                    HttpResponse<String> response = fixture.post(path, body);
                    assertThat(response.statusCode()).as(path).isEqualTo(400);
                    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
                    assertThat(ServerFixture.MAPPER.readTree(response.body()).at("/error/message").asString())
                            .contains("not valid JSON");
                }
            }
        }
    }

    @Test
    void aConnectionThatTricklesItsHeadIsClosed() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> { });
             JettyAgentServer strict = JettyAgentServer.start(fixture.server, "127.0.0.1", 0,
                     JettyAgentServer.IDLE_TIMEOUT, Duration.ofMillis(700));
             Socket socket = new Socket("127.0.0.1", strict.port())) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            CompletableFuture<Integer> closed = Background.supply(() -> {
                try {
                    return in.read();
                } catch (IOException e) {
                    return -1;      // reset: closed as well
                }
            });
            out.write("POST /agui HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            int sent = 0;
            try {
                // a hang guard, not a measure: far more lines than the deadline lets through
                while (!closed.isDone() && sent < 300) {
                    Thread.sleep(100);
                    out.write(("X-Slow-" + sent++ + ": 1\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            } catch (IOException reset) {
                // the server closed it while lines were still coming
            }
            assertThat(closed.get(60, TimeUnit.SECONDS)).as("the server answered nothing and closed the connection").isEqualTo(-1);
            assertThat(sent).isLessThan(300);
            // the deadline is for the head: a request sent whole is served on the same server
            assertThat(client(strict).statusCode()).isEqualTo(200);
        }
    }

    private static HttpResponse<String> client(JettyAgentServer server) throws Exception {
        try (java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient()) {
            return client.send(java.net.http.HttpRequest.newBuilder(server.uri().resolve("/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void everyOriginNeedsATokenAndAllowedValuesMustBeOriginsAndHosts() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> { })) {
            dev.bellows.agent.Agent agent = dev.bellows.agent.DefaultAgent.builder().provider(fixture.provider)
                    .model("mock").toolRegistry(new dev.bellows.tool.ToolRegistry()).build();
            assertThatThrownBy(() -> AgentServer.builder(agent).allowOrigins(List.of("*")).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auth token");
            assertThat(AgentServer.builder(agent).allowOrigins(List.of("*")).authToken("t").build()).isNotNull();
            assertThatThrownBy(() -> AgentServer.builder(agent).allowOrigins(List.of("https://a.example/path")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("origin");
            assertThatThrownBy(() -> AgentServer.builder(agent).allowHosts(List.of("http://a.example")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host");
        }
    }
}
