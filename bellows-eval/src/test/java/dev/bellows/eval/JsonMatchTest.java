package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.json.internal.Jackson;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/** Numbers compare by value, whatever node holds them (whole numbers without a BigDecimal). */
class JsonMatchTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Test
    void numbersAreEqualByValueWhateverTheirNode() {
        JsonNode[] two = {NODES.numberNode(2), NODES.numberNode(2L), NODES.numberNode((short) 2), NODES.numberNode(2.0),
                NODES.numberNode(new BigDecimal("2.00")), NODES.numberNode(BigInteger.TWO), Jackson.JSON.readTree("2e0")};
        for (JsonNode a : two) {
            for (JsonNode b : two) {
                assertThat(JsonMatch.equal(a, b)).as(a + " and " + b).isTrue();
            }
            assertThat(JsonMatch.equal(a, NODES.numberNode(3L))).as(a + " and 3").isFalse();
            assertThat(JsonMatch.equal(a, NODES.numberNode(2.5))).as(a + " and 2.5").isFalse();
        }
        assertThat(JsonMatch.equal(NODES.numberNode(Long.MAX_VALUE), NODES.numberNode(BigInteger.valueOf(Long.MAX_VALUE)))).isTrue();
        assertThat(JsonMatch.equal(NODES.numberNode(Long.MAX_VALUE), NODES.numberNode(Long.MAX_VALUE - 1))).isFalse();
        assertThat(JsonMatch.equal(NODES.numberNode(-1), NODES.numberNode(4294967295L))).isFalse();
        assertThat(JsonMatch.equal(NODES.numberNode(Integer.MIN_VALUE), NODES.numberNode((long) Integer.MIN_VALUE))).isTrue();
    }

    @Test
    void aSubsetMatchesTheArgumentsThatHoldIt() {
        JsonNode run = Jackson.JSON.readTree("{\"a\": 2, \"b\": 3, \"c\": {\"d\": [1, 2.0]}}");
        assertThat(JsonMatch.subset(Jackson.JSON.readTree("{\"a\": 2.0}"), run)).isTrue();
        assertThat(JsonMatch.subset(Jackson.JSON.readTree("{\"c\": {\"d\": [1.0, 2]}}"), run)).isTrue();
        assertThat(JsonMatch.subset(Jackson.JSON.readTree("{\"a\": 3}"), run)).isFalse();
        assertThat(JsonMatch.equal(Jackson.JSON.readTree("{\"a\": 2}"), run)).isFalse();
    }
}
