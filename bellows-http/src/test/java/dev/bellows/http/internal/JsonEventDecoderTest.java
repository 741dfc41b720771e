package dev.bellows.http.internal;

import dev.bellows.http.internal.JsonEventDecoder;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decoders' common part: one parser kept across events while what follows each object is
 * whitespace, let go of when other text follows (it may have left the parser inside a value,
 * which the next event would then continue) or when an event is truncated; counts read as a
 * tree's {@code canConvertToLong} would.
 */
class JsonEventDecoderTest {

    /** Reads the root's {@code n} as a count, skipping every other field. */
    private static final class Counts extends JsonEventDecoder {
        final List<Long> counts = new ArrayList<>();
        int cleared;

        Counts() {
            super(Jackson.JSON);
        }

        @Override
        protected void clear() {
            cleared++;
        }

        @Override
        protected void readRoot() throws IOException {
            while (next() == JsonToken.PROPERTY_NAME) {
                String name = parser().currentName();
                JsonToken value = next();
                if (name.equals("n")) {
                    counts.add(count(value));
                } else {
                    skip(value);
                }
            }
        }

        void decode(String data) throws IOException {
            decode(data.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aParserOutlivesEventsFollowedByWhitespaceOnlyAndGoesAfterOtherText() throws Exception {
        Counts decoder = new Counts();
        decoder.decode("{\"n\":1}");
        var first = decoder.parser();
        assertThat(first).isNotNull();
        decoder.decode("{\"n\":2} \r\n\t");
        assertThat(decoder.parser()).isSameAs(first);
        decoder.decode("  {\"n\":3}");
        assertThat(decoder.parser()).isSameAs(first);
        decoder.decode("{\"n\":4}\"");
        assertThat(decoder.parser()).isNull();
        decoder.decode("{\"n\":5}");
        assertThat(decoder.counts).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(decoder.cleared).isEqualTo(5);
        decoder.reset();
        assertThat(decoder.parser()).isNull();
    }

    @Test
    void aTruncatedEventThrowsAndTheNextEventGetsANewParser() throws Exception {
        Counts decoder = new Counts();
        decoder.decode("{\"n\":1}");
        assertThatThrownBy(() -> decoder.decode("{\"n\":2, \"x\": [1, {\"y\":"))
                .isInstanceOf(IOException.class).hasMessageContaining("ends inside its JSON object");
        assertThat(decoder.parser()).isNull();
        assertThatThrownBy(() -> decoder.decode("[1]")).isInstanceOf(IOException.class);
        decoder.decode("{\"x\": {\"deep\": [[{}]]}, \"n\": 7}");
        // (the 2 was read before the event broke off: a decoder's caller drops a result that threw)
        assertThat(decoder.counts).containsExactly(1L, 2L, 7L);
    }

    @Test
    void countsAreNumbersOfAtLeastZeroThatFitALongElseMinusOne() throws Exception {
        Counts decoder = new Counts();
        for (String n : List.of("0", "9223372036854775807", "2.9", "-1", "9223372036854775808", "\"5\"", "null",
                "true", "{\"a\":1}", "[1]", "1e3")) {
            decoder.decode("{\"n\":" + n + "}");
        }
        assertThat(decoder.counts).containsExactly(0L, Long.MAX_VALUE, 2L, -1L, -1L, -1L, -1L, -1L, -1L, -1L, 1000L);
    }
}
