package dev.bellows.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.server.ServerExchange;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The transport's own rules, on exchanges in memory: sessions past the limit, and what it refuses. */
class ExchangeTransportTest {

    private static final String INITIALIZE = "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {"
            + "\"protocolVersion\": \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": {\"name\": \"t\", \"version\": \"1\"}}}";
    private static final String PING = "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"ping\"}";

    /** One request in memory and the answer it got. */
    static final class Exchange implements ServerExchange {
        final String method;
        final byte[] body;
        final Map<String, String> headers = new LinkedHashMap<>();
        int status;
        Map<String, String> answerHeaders;
        final ByteArrayOutputStream answer = new ByteArrayOutputStream();

        Exchange(String method, String body) {
            this.method = method;
            this.body = body.getBytes(StandardCharsets.UTF_8);
        }

        Exchange session(String id) {
            headers.put("mcp-session-id", id);
            return this;
        }

        @Override
        public String method() {
            return method;
        }

        @Override
        public String path() {
            return "/mcp";
        }

        @Override
        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(java.util.Locale.ROOT)));
        }

        @Override
        public InputStream body() {
            return new ByteArrayInputStream(body);
        }

        @Override
        public long contentLength() {
            return body.length;
        }

        @Override
        public OutputStream respond(int status, Map<String, String> headers) {
            this.status = status;
            this.answerHeaders = headers;
            return answer;
        }

        String text() {
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    private static Exchange send(ExchangeTransport transport, Exchange exchange) throws IOException {
        transport.handle(exchange);
        return exchange;
    }

    @Test
    void aSessionPastTheLimitEndsTheOneUsedLeastRecently() throws IOException {
        ExchangeTransport transport = new ExchangeTransport(McpJsonDefaults.getMapper(), 1 << 20, 2);
        McpAsyncServer server = McpServer.async(transport).serverInfo("t", "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build()).build();
        try {
            String first = send(transport, new Exchange("POST", INITIALIZE)).answerHeaders.get("Mcp-Session-Id");
            String second = send(transport, new Exchange("POST", INITIALIZE)).answerHeaders.get("Mcp-Session-Id");
            assertThat(send(transport, new Exchange("POST", PING).session(first)).status).isEqualTo(200);  // first used last
            String third = send(transport, new Exchange("POST", INITIALIZE)).answerHeaders.get("Mcp-Session-Id");

            Exchange ended = send(transport, new Exchange("POST", PING).session(second));
            assertThat(ended.status).isEqualTo(404);
            assertThat(ended.text()).contains("initialize again");
            assertThat(send(transport, new Exchange("POST", PING).session(first)).text()).contains("\"result\"");
            assertThat(send(transport, new Exchange("POST", PING).session(third)).text()).contains("\"result\"");
        } finally {
            server.close();
        }
    }

    @Test
    void itRefusesWhatItCannotTake() throws IOException {
        ExchangeTransport transport = new ExchangeTransport(McpJsonDefaults.getMapper(), 120, 2);
        McpAsyncServer server = McpServer.async(transport).serverInfo("t", "1").build();
        try {
            assertThat(send(transport, new Exchange("POST", INITIALIZE)).status).as("over 120 bytes").isEqualTo(413);
            assertThat(send(transport, new Exchange("POST", "[1, 2")).status).isEqualTo(400);
            assertThat(send(transport, new Exchange("POST", PING)).text()).contains("no Mcp-Session-Id");
            assertThat(send(transport, new Exchange("GET", "")).answerHeaders).containsEntry("Allow", "POST, DELETE");
            assertThat(send(transport, new Exchange("DELETE", "").session("nobody")).status).isEqualTo(404);
            // a cancel of a request that is not running changes nothing
            String cancel = "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/cancelled\", \"params\": {\"requestId\": 9}}";
            assertThat(send(transport, new Exchange("POST", cancel).session("nobody")).status).isEqualTo(404);
        } finally {
            server.close();
        }
    }
}
