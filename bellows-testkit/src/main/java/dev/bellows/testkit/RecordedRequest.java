package dev.bellows.testkit;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * One request {@link MockLlmServer} received, for assertions.
 *
 * @param method  {@code GET}, {@code POST}, ...
 * @param path    the request path with its query, e.g. {@code /v1/chat/completions}
 * @param headers header names in lower case (sorted) to their values; the values
 *                of {@code authorization}, {@code proxy-authorization}, {@code x-api-key} and
 *                {@code api-key} are redacted ({@code Bearer [REDACTED]} or {@code [REDACTED]})
 * @param body    the body as JSON; a body that is not JSON is a text node of its raw text; an
 *                empty body is a null node; frozen (read-only)
 * @param turn    the index (from 0) of the script turn the request took, or -1 for none
 *                (not a chat request, a bad request, or the turns had run out)
 */
public record RecordedRequest(String method, String path, Map<String, List<String>> headers, JsonNode body, int turn) {

    /** What a redacted header value is replaced with. */
    public static final String REDACTED = "[REDACTED]";

    public RecordedRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        TreeMap<String, List<String>> copy = new TreeMap<>();
        headers.forEach((name, values) -> copy.put(name.toLowerCase(Locale.ROOT), List.copyOf(values)));
        headers = Collections.unmodifiableMap(copy);
        body = body == null ? JsonNodeFactory.instance.nullNode() : FrozenJson.freeze(body);
    }

    /** The first value of a header (name in any case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The script turn this request took. */
    public OptionalInt turnIndex() {
        return turn < 0 ? OptionalInt.empty() : OptionalInt.of(turn);
    }

    /** The line {@code --record} writes: method, path, headers (redacted), body, turn; a new object. */
    public JsonNode toJson() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("method", method);
        json.put("path", path);
        ObjectNode headerJson = json.putObject("headers");
        headers.forEach((name, values) -> {
            if (values.size() == 1) {
                headerJson.put(name, values.get(0));
            } else {
                values.forEach(headerJson.withArray(name)::add);
            }
        });
        json.set("body", body);
        if (turn >= 0) {
            json.put("turn", turn);
        } else {
            json.putNull("turn");
        }
        return json;
    }

    static boolean isSecret(String headerName) {
        return switch (headerName.toLowerCase(Locale.ROOT)) {
            case "authorization", "proxy-authorization", "x-api-key", "api-key" -> true;
            default -> false;
        };
    }

    static String redact(String value) {
        int space = value.indexOf(' ');
        // Keep the scheme ("Bearer"), so tests can still see how the key was sent.
        if (space > 0 && value.substring(0, space).chars().allMatch(Character::isLetter)) {
            return value.substring(0, space) + " " + REDACTED;
        }
        return REDACTED;
    }
}
