package dev.bellows.server;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the server answers with an error status before any run starts: its status, its
 * extra headers and the JSON body {@code {"error": {"message", "type", "param", "code"}}} (OpenAI's
 * shape, so that OpenAI clients read it too; {@code param} names the field at fault, when one is).
 */
final class HttpError extends Exception {

    final int status;
    final String type;
    final String param;
    final Map<String, String> headers;

    private HttpError(int status, String type, String param, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.headers = headers;
    }

    static HttpError badRequest(String param, String message) {
        return new HttpError(400, "invalid_request_error", param, param == null || param.isEmpty() ? message
                : param + ": " + message, Map.of());
    }

    static HttpError of(int status, String type, String message) {
        return new HttpError(status, type, null, message, Map.of());
    }

    static HttpError unauthorized() {
        return new HttpError(401, "authentication_error", null,
                "this server needs a bearer token: send the header Authorization: Bearer TOKEN", Map.of("WWW-Authenticate", "Bearer"));
    }

    /** 403: refused before its body was read, {@code header} naming what was refused. */
    static HttpError forbidden(String header, String message) {
        return new HttpError(403, "permission_error", header, message, Map.of());
    }

    static HttpError unsupportedMediaType(String given) {
        return new HttpError(415, "invalid_request_error", "Content-Type", "Content-Type " + given
                + ": this endpoint takes a JSON body, sent as Content-Type: application/json", Map.of());
    }

    static HttpError tooManyRuns(int maxRuns) {
        return new HttpError(429, "rate_limit_error", null, "the server runs " + maxRuns
                + " runs at once, the most it takes; try again in a moment", Map.of("Retry-After", "1"));
    }

    static HttpError notFound(String path) {
        return new HttpError(404, "not_found_error", null, "no such endpoint: " + path
                + " (POST /agui, POST /v1/chat/completions, GET /v1/models, GET /health, GET /)", Map.of());
    }

    static HttpError methodNotAllowed(String method, String path, String allowed) {
        return new HttpError(405, "invalid_request_error", null, method + " " + path + ": use " + allowed,
                Map.of("Allow", allowed));
    }

    ObjectNode body() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        ObjectNode error = json.putObject("error");
        error.put("message", getMessage());
        error.put("type", type);
        if (param == null) {
            error.putNull("param");
        } else {
            error.put("param", param);
        }
        error.putNull("code");      // OpenAI's error body has all four; its clients read them
        return json;
    }

    Map<String, String> allHeaders() {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put("Content-Type", "application/json");
        return all;
    }
}
