package dev.bellows.a2a.server;

import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.a2a.A2aError;
import dev.bellows.secret.Secrets;
import dev.bellows.server.ServerExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Responses and query strings, shared by the two bindings. */
final class Http {

    private Http() {
    }

    static void send(ServerExchange exchange, int status, Map<String, String> headers, byte[] given) throws IOException {
        byte[] body = redacted(given);
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.putIfAbsent("Content-Type", "application/json");
        all.put("Content-Length", Integer.toString(body.length));
        all.putIfAbsent("Cache-Control", "no-store");
        try (OutputStream out = exchange.respond(status, all)) {
            if (!exchange.method().equals("HEAD")) {
                out.write(body);
            }
        }
    }

    static void json(ServerExchange exchange, int status, Object value) throws IOException {
        send(exchange, status, Map.of(), Json.MAPPER.writeValueAsBytes(value));
    }

    /** The bytes with every secret of the process (API keys, passwords: {@link Secrets}) replaced. */
    static byte[] redacted(byte[] json) {
        String text = new String(json, StandardCharsets.UTF_8);
        String clean = Secrets.redact(text);
        return clean.equals(text) ? json : clean.getBytes(StandardCharsets.UTF_8);
    }

    /** The HTTP+JSON error body (google.rpc.Status, with an ErrorInfo naming the A2A error). */
    static byte[] problem(A2aError error, int status, String message) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        ObjectNode inner = body.putObject("error");
        inner.put("code", status);
        inner.put("status", grpcStatus(error));
        inner.put("message", message);
        ArrayNode details = inner.putArray("details");
        details.add(errorInfo(error));
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    static ObjectNode errorInfo(A2aError error) {
        ObjectNode info = Json.MAPPER.createObjectNode();
        info.put("@type", "type.googleapis.com/google.rpc.ErrorInfo");
        info.put("reason", error.reason());
        info.put("domain", A2aError.DOMAIN);
        return info;
    }

    /** The gRPC status name that goes with the error (google.rpc.Status's {@code status}). */
    static String grpcStatus(A2aError error) {
        return switch (error) {
            case TASK_NOT_FOUND, METHOD_NOT_FOUND -> "NOT_FOUND";
            case TASK_NOT_CANCELABLE, EXTENDED_AGENT_CARD_NOT_CONFIGURED, EXTENSION_SUPPORT_REQUIRED -> "FAILED_PRECONDITION";
            case PUSH_NOTIFICATION_NOT_SUPPORTED, UNSUPPORTED_OPERATION, VERSION_NOT_SUPPORTED -> "UNIMPLEMENTED";
            case INVALID_AGENT_RESPONSE, INTERNAL_ERROR -> "INTERNAL";
            default -> "INVALID_ARGUMENT";
        };
    }

    /** The query's parameters, decoded; the first value of each name. */
    static Map<String, String> query(ServerExchange exchange) {
        Map<String, String> params = new LinkedHashMap<>();
        String query = exchange.query().orElse("");
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            params.putIfAbsent(name, value);
        }
        return params;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return text;
        }
    }
}
