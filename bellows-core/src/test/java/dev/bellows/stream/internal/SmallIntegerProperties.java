package dev.bellows.stream.internal;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The argument scanner reads a small integer without a parser ({@link JsonArgumentScanner#smallInteger}):
 * the node must be the one the JSON reader makes of the same text, same class and value, so that
 * the argument events carry the same values as before.
 */
class SmallIntegerProperties {

    private static void sameAsTheReader(String raw) throws SyntaxError {
        JsonNode fast = JsonArgumentScanner.smallInteger(raw);
        JsonNode read = StrictJson.read(raw);
        assertThat(fast).as(raw).isNotNull();
        assertThat(fast.getClass()).as(raw).isEqualTo(read.getClass());
        assertThat(fast).as(raw).isEqualTo(read);
        assertThat(fast.toString()).as(raw).isEqualTo(read.toString());
    }

    @Property
    void integersOfUpToNineDigitsAreReadAsTheReaderReadsThem(@ForAll @IntRange(min = -999_999_999, max = 999_999_999) int value)
            throws SyntaxError {
        sameAsTheReader(Integer.toString(value));
    }

    @Example
    void theEdges() throws SyntaxError {
        for (String raw : new String[] {"0", "-0", "7", "-7", "999999999", "-999999999", "100000000"}) {
            sameAsTheReader(raw);
        }
    }

    @Property
    void longerIntegersAreLeftToTheReader(@ForAll @LongRange(min = 1_000_000_000L, max = Long.MAX_VALUE) long value) {
        assertThat(JsonArgumentScanner.smallInteger(Long.toString(value))).isNull();
        assertThat(JsonArgumentScanner.smallInteger("-" + value)).isNull();
    }

    @Example
    void whatIsNotAnIntegerIsLeftToTheReader() {
        for (String raw : new String[] {"", "-", "1.5", "1e3", "-2E-1", "0.0", "true", "\"1\"", "12a"}) {
            assertThat(JsonArgumentScanner.smallInteger(raw)).as(raw).isNull();
        }
    }
}
