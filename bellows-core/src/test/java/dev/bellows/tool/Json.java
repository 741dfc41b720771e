package dev.bellows.tool;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/** Test JSON written with single quotes, so that schemas and arguments read as they would print. */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(JsonParser.Feature.ALLOW_SINGLE_QUOTES);

    private Json() {
    }

    static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode object(String json) {
        return (ObjectNode) parse(json);
    }

    /** Compact JSON with double quotes, for comparing with what a test wrote with single ones. */
    static String normalize(String json) {
        return parse(json).toString();
    }
}
