package dev.bellows.tool;

import tools.jackson.databind.ObjectReader;
import tools.jackson.core.json.JsonReadFeature;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Test JSON written with single quotes, so that schemas and arguments read as they would print. */
final class Json {

    private static final ObjectReader MAPPER = Jackson.JSON.reader().with(JsonReadFeature.ALLOW_SINGLE_QUOTES);

    private Json() {
    }

    static JsonNode parse(String json) {
        return MAPPER.readTree(json);
    }

    static ObjectNode object(String json) {
        return (ObjectNode) parse(json);
    }

    /** Compact JSON with double quotes, for comparing with what a test wrote with single ones. */
    static String normalize(String json) {
        return parse(json).toString();
    }
}
