package dev.bellows.stream;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolSchemasTest {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    private static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JacksonException e) {
            throw new AssertionError(e);
        }
    }

    private static final ToolSchemas SCHEMAS = ToolSchemas.fromJson(json("[{\"name\": \"f\", \"parameters\": {\"properties\": {"
            + "\"i\": {\"type\": \"integer\"}, \"n\": {\"type\": \"number\"}, \"b\": {\"type\": \"boolean\"},"
            + " \"o\": {\"type\": \"object\"}, \"a\": {\"type\": \"array\"}, \"s\": {\"type\": \"string\"},"
            + " \"ns\": {\"type\": [\"string\", \"null\"]}, \"ni\": {\"anyOf\": [{\"type\": \"integer\"}, {\"type\": \"null\"}]}}}}]"));

    private static String value(String parameter, String text) {
        return SCHEMAS.parameters().value("f", parameter, text).toString();
    }

    @Test
    void valuesAreTypedWhenTheTextIsOne() {
        assertThat(value("i", " 42 ")).isEqualTo("42");
        assertThat(value("i", "4.0")).isEqualTo("4");
        assertThat(value("n", "2.5")).isEqualTo("2.5");
        assertThat(value("n", "3.0")).isEqualTo("3");
        assertThat(value("b", "False")).isEqualTo("false");
        assertThat(value("o", "{\"k\": [1]}")).isEqualTo("{\"k\":[1]}");
        assertThat(value("a", "[1, \"x\"]")).isEqualTo("[1,\"x\"]");
        assertThat(value("ni", "null")).isEqualTo("null");
        assertThat(value("ni", "7")).isEqualTo("7");
    }

    @Test
    void stringsUnknownParametersAndTextThatDoesNotConvertStayText() {
        assertThat(value("s", " 007 ")).isEqualTo("\" 007 \"");
        assertThat(value("ns", "null")).as("a string that may be null: the word is null").isEqualTo("null");
        assertThat(value("i", "4.5")).isEqualTo("\"4.5\"");
        assertThat(value("b", "yes")).isEqualTo("\"yes\"");
        assertThat(value("o", "[1]")).isEqualTo("\"[1]\"");
        assertThat(value("other", "1")).isEqualTo("\"1\"");
        assertThat(ToolSchemas.none().parameters().value("f", "i", "1").toString()).isEqualTo("\"1\"");
    }

    @Test
    void theOpenAiFormIsAcceptedAndBadListsAreNamed() {
        ToolSchemas openAi = ToolSchemas.fromJson(json("[{\"type\": \"function\", \"function\": {\"name\": \"g\","
                + " \"parameters\": {\"properties\": {\"x\": {\"type\": \"integer\"}}}}}]"));
        assertThat(openAi.parameters().value("g", "x", "3").toString()).isEqualTo("3");
        assertThat(catchThrowable(() -> ToolSchemas.fromJson(json("{}")))).hasMessageContaining("JSON list");
        assertThat(catchThrowable(() -> ToolSchemas.fromJson(json("[{\"parameters\": {}}]"))))
                .hasMessageContaining("tool 1 of the list has no \"name\"");
        assertThat(catchThrowable(() -> ToolSchemas.fromJson(json("[{\"name\": \"h\", \"parameters\": 3}]"))))
                .hasMessageContaining("tool 'h'");
    }

    @Test
    void theCallersMapIsCopied() {
        ObjectNode schema = (ObjectNode) json("{\"properties\": {\"x\": {\"type\": \"integer\"}}}");
        ToolSchemas schemas = ToolSchemas.of(Map.of("t", schema));
        schema.removeAll();
        assertThat(schemas.parameters().value("t", "x", "1").toString()).isEqualTo("1");
    }
}
