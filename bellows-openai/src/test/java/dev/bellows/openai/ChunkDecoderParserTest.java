package dev.bellows.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The decoder keeps one parser across events (no parser made per chunk) while what follows each
 * object is whitespace, and lets it go when other text follows (it may have left the parser
 * inside a value, which the next event would then continue).
 */
class ChunkDecoderParserTest {

    @Test
    void aParserOutlivesEventsFollowedByWhitespaceOnlyAndGoesAfterOtherText() throws Exception {
        ChunkDecoder decoder = new ChunkDecoder(new ObjectMapper());
        decoder.decode("{\"choices\":[]}".getBytes(StandardCharsets.UTF_8));
        JsonParser first = parser(decoder);
        assertThat(first).isNotNull();
        decoder.decode("{\"choices\":[]} \r\n\t".getBytes(StandardCharsets.UTF_8));
        assertThat(parser(decoder)).isSameAs(first);
        decoder.decode("  {\"choices\":[]}".getBytes(StandardCharsets.UTF_8));
        assertThat(parser(decoder)).isSameAs(first);
        decoder.decode("{\"choices\":[]}\"".getBytes(StandardCharsets.UTF_8));
        assertThat(parser(decoder)).isNull();
    }

    private static JsonParser parser(ChunkDecoder decoder) throws ReflectiveOperationException {
        Field field = ChunkDecoder.class.getDeclaredField("parser");
        field.setAccessible(true);
        return (JsonParser) field.get(decoder);
    }
}
