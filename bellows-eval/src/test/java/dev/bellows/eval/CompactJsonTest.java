package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.json.internal.Jackson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The {@code tools} check's arguments text: always what {@link JsonNode#toString()} writes. */
class CompactJsonTest {

    private static String appended(JsonNode value) {
        StringBuilder out = new StringBuilder("before ");
        CompactJson.append(out, value);
        return out.toString();
    }

    @Test
    void everyKindOfValueIsWrittenAsToStringWritesIt() {
        List<String> texts = List.of("{}", "[]", "{\"a\":2,\"b\":3}", "{\"b\": 3, \"a\": 2}", "{\"city\": \"Oslo\", \"unit\": \"C\"}",
                "{\"n\": -9223372036854775808, \"m\": 2147483648, \"i\": -1}", "{\"f\": 2.5, \"e\": 1e300, \"z\": -0.0}",
                "{\"big\": 123456789012345678901234567890}", "{\"t\": true, \"f\": false, \"n\": null}",
                "{\"nested\": {\"list\": [1, \"two\", [3, {\"four\": 4}], null]}}", "{\"q\": \"say \\\"hi\\\"\"}",
                "{\"slash\": \"a\\\\b\", \"tab\": \"a\\tb\", \"line\": \"a\\nb\", \"nul\": \"\\u0000\"}",
                "{\"é\": \"ünïcode ☃ 😀\", \"del\": \"\\u007f\"}", "{\"key with \\\"quote\\\"\": 1}", "\"just text\"", "42", "[{}, []]");
        for (String text : texts) {
            JsonNode parsed = Jackson.JSON.readTree(text);
            assertThat(appended(parsed)).as(text).isEqualTo("before " + parsed);
            assertThat(appended(FrozenJson.freeze(parsed.deepCopy()))).as(text).isEqualTo("before " + parsed);
        }
    }

    @Test
    void nodesMadeInCodeToo() {
        ObjectNode made = JsonNodeFactory.instance.objectNode();
        made.put("short", (short) 7).put("decimal", new BigDecimal("1.50")).put("bigint", BigInteger.TEN.pow(30))
                .put("float", 0.1f).put("bytes", new byte[] {1, 2, 3});
        made.putPOJO("pojo", List.of(1, 2));
        for (var field : made.properties()) {
            ObjectNode one = JsonNodeFactory.instance.objectNode().put("a", 1).set("x", field.getValue());
            assertThat(appended(one)).as(field.getKey()).isEqualTo("before " + one);
        }
    }

    @Test
    void randomArgumentsAreWrittenAsToStringWritesThem() {
        Random random = new Random(35);
        for (int i = 0; i < 2_000; i++) {
            JsonNode value = random(random, 3);
            assertThat(appended(value)).isEqualTo("before " + value);
        }
    }

    private static JsonNode random(Random random, int depth) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        int kind = random.nextInt(depth > 0 ? 9 : 7);
        return switch (kind) {
            case 0 -> nodes.numberNode(random.nextInt());
            case 1 -> nodes.numberNode(random.nextLong());
            case 2 -> nodes.numberNode(random.nextDouble() * 1000 - 500);
            case 3 -> nodes.booleanNode(random.nextBoolean());
            case 4 -> nodes.nullNode();
            case 5, 6 -> nodes.stringNode(text(random));
            case 7 -> {
                ArrayNode array = nodes.arrayNode();
                for (int n = random.nextInt(4); n > 0; n--) {
                    array.add(random(random, depth - 1));
                }
                yield array;
            }
            default -> {
                ObjectNode object = nodes.objectNode();
                for (int n = random.nextInt(4); n > 0; n--) {
                    object.set(text(random), random(random, depth - 1));
                }
                yield object;
            }
        };
    }

    /** Mostly plain ASCII, sometimes a character that is escaped or left to the generator. */
    private static String text(Random random) {
        String alphabet = "abcXYZ 019_-/:.,{}[]\"\\\t\n\u0001\u007fé☃";
        StringBuilder text = new StringBuilder();
        for (int n = random.nextInt(8); n > 0; n--) {
            text.append(random.nextInt(4) == 0 ? alphabet.charAt(random.nextInt(alphabet.length())) : (char) ('a' + random.nextInt(26)));
        }
        return text.toString();
    }
}
