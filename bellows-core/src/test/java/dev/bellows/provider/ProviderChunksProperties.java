package dev.bellows.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.stream.ContentType;
import dev.bellows.stream.StreamChunk;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Tool call chunks written and read without a tree are what the tree wrote and read. */
class ProviderChunksProperties {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How the chunk text was written before: a tree's toString. */
    private static String treeText(ProviderChunks.ToolCallDelta delta) {
        ObjectNode node = JSON.createObjectNode().put("index", delta.index());
        if (delta.id() != null) {
            node.put("id", delta.id());
        }
        if (delta.name() != null) {
            node.put("name", delta.name());
        }
        node.put("arguments", delta.arguments());
        return node.toString();
    }

    /** How a chunk was read before: as a tree. */
    private static ProviderChunks.ToolCallDelta treeRead(String text) throws Exception {
        JsonNode node = JSON.readTree(text);
        return new ProviderChunks.ToolCallDelta(node.path("index").asInt(), text(node, "id"), text(node, "name"),
                text(node, "arguments"));
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    @Property(tries = 1000)
    void writtenAsTheTreeWroteAndReadBackWhole(@ForAll("deltas") ProviderChunks.ToolCallDelta delta) {
        StreamChunk chunk = ProviderChunks.toolCall(delta);
        assertThat(chunk.text()).isEqualTo(treeText(delta));
        assertThat(ProviderChunks.toolCallDelta(chunk)).isEqualTo(delta);
    }

    @Property(tries = 1000)
    void anyTextIsReadAsTheTreeReadsIt(@ForAll("texts") String text) throws Exception {
        ProviderChunks.ToolCallDelta flat = FlatToolCall.read(text);
        if (flat != null) {
            assertThat(flat).isEqualTo(treeRead(text));
        }
    }

    @Test
    void otherShapesAreReadAsATree() {
        StreamChunk spaced = new StreamChunk(ContentType.TOOL_CALL, "{ \"arguments\": \"{}\", \"index\": 2, \"name\": \"f\" }");
        assertThat(ProviderChunks.toolCallDelta(spaced)).isEqualTo(new ProviderChunks.ToolCallDelta(2, null, "f", "{}"));
        assertThatThrownBy(() -> ProviderChunks.toolCallDelta(new StreamChunk(ContentType.TOOL_CALL, "{\"index\":0,")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid JSON");
    }

    @Provide
    Arbitrary<ProviderChunks.ToolCallDelta> deltas() {
        Arbitrary<String> nullable = strings().injectNull(0.3);
        return Combinators.combine(Arbitraries.integers().between(0, Integer.MAX_VALUE), nullable, nullable, strings())
                .as(ProviderChunks.ToolCallDelta::new);
    }

    private static Arbitrary<String> strings() {
        return Arbitraries.oneOf(
                        Arbitraries.strings().withChars("ab{}:,\"\\/ \n\t\r\b\f\u0000\u001f\u007f"),
                        Arbitraries.of("é", "😀", "\u2028", "\uD800", "\\u0041", "{\"a\": 2}"))
                .list().ofMaxSize(5).map(parts -> String.join("", parts));
    }

    /** Written chunks, then cut, spliced or with escapes and numbers changed. */
    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> written = deltas().map(delta -> ProviderChunks.toolCall(delta).text());
        Arbitrary<String> edits = Arbitraries.of("\\u00e9", "\\uD83D\\uDE00", "\\/", "\\x", "\\u12", "\\uZZZZ", "\\u0660\\u0661",
                "\"", " ", "01", "-1", "1.5", "99999999999", "}", "\n");
        return Arbitraries.oneOf(written,
                Combinators.combine(written, Arbitraries.integers().between(0, 200), edits)
                        .as((text, at, edit) -> {
                            int i = Math.min(at, text.length());
                            return text.substring(0, i) + edit + text.substring(i);
                        }),
                Combinators.combine(written, Arbitraries.integers().between(0, 200))
                        .as((text, at) -> text.substring(0, Math.min(at, text.length()))));
    }
}
