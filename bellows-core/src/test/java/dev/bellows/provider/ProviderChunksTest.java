package dev.bellows.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.stream.ContentType;
import dev.bellows.stream.StreamChunk;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The tool call chunks, written and read without a JSON tree, against what Jackson writes and reads. */
class ProviderChunksTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Provide
    Arbitrary<String> texts() {
        // Every kind of character the escaping treats differently: controls, quotes, backslashes,
        // ASCII, beyond ASCII, and surrogate halves (lone ones too).
        return Arbitraries.strings().withCharRange('\u0000', '\u00ff').withChars('"', '\\', '/', '\u2028', '\ud83d', '\ude00')
                .ofMaxLength(40).injectNull(0.2);
    }

    @Property(tries = 500)
    void writesWhatJacksonWritesAndReadsItBack(@ForAll @IntRange(max = Integer.MAX_VALUE) int index,
                                               @ForAll("texts") String id, @ForAll("texts") String name,
                                               @ForAll("texts") String arguments) {
        ProviderChunks.ToolCallDelta delta = new ProviderChunks.ToolCallDelta(index, id, name, arguments);
        StreamChunk chunk = ProviderChunks.toolCall(delta);

        ObjectNode expected = JSON.createObjectNode().put("index", index);
        if (id != null) {
            expected.put("id", id);
        }
        if (name != null) {
            expected.put("name", name);
        }
        expected.put("arguments", delta.arguments());
        assertThat(chunk.type()).isEqualTo(ContentType.TOOL_CALL);
        assertThat(chunk.text()).isEqualTo(expected.toString());
        assertThat(ChunkJson.toolCallDelta(chunk.text())).as("read without a tree").isEqualTo(delta);
        assertThat(ProviderChunks.toolCallDelta(chunk)).isEqualTo(delta);
    }

    @Test
    void otherShapesOfTheSameJsonAreReadByTheGeneralReader() {
        String spaced = "{ \"arguments\": \"{\\\"a\\\": 1}\", \"name\": \"add\", \"index\": 2 }";
        assertThat(ChunkJson.toolCallDelta(spaced)).isNull();
        assertThat(ProviderChunks.toolCallDelta(new StreamChunk(ContentType.TOOL_CALL, spaced)))
                .isEqualTo(new ProviderChunks.ToolCallDelta(2, null, "add", "{\"a\": 1}"));
    }

    @Test
    void malformedShapesAreLeftToTheGeneralReader() {
        for (String text : new String[] {"", "{", "{\"index\":", "{\"index\":01,\"arguments\":\"\"}",
                "{\"index\":-1,\"arguments\":\"\"}", "{\"index\":99999999999,\"arguments\":\"\"}",
                "{\"index\":0,\"arguments\":\"\\x\"}", "{\"index\":0,\"arguments\":\"\\u12\"}",
                "{\"index\":0,\"arguments\":\"a\nb\"}", "{\"index\":0,\"arguments\":\"\"} ", "{\"index\":0}",
                "{\"index\":0,\"arguments\":\"unterminated}"}) {
            assertThat(ChunkJson.toolCallDelta(text)).as(text).isNull();
        }
        assertThatThrownBy(() -> ProviderChunks.toolCallDelta(new StreamChunk(ContentType.TOOL_CALL, "{")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid JSON");
        assertThatThrownBy(() -> ProviderChunks.toolCallDelta(StreamChunk.message("{\"index\":0,\"arguments\":\"\"}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a");
    }
}
