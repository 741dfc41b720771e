package dev.bellows.stream.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.json.internal.FrozenTreeReader;
import dev.bellows.json.internal.Jackson;
import java.util.Iterator;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link StrictJson#read} builds its frozen tree itself, in one pass over the parser's tokens:
 * the tree must be the one Jackson's tree reader made with the settings the decoders had
 * (floats as exact decimals with their trailing zeros, integers by size), node class by node
 * class, in the same order, and read-only throughout.
 */
class StrictJsonTreeProperties {

    /** The reader the decoders used before: Jackson's tree, then frozen when a call was made of it. */
    private static final ObjectReader JACKSON_TREE = Jackson.JSON.reader()
            .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);

    private static void sameAsJacksonsTree(String text) throws SyntaxError {
        JsonNode read = StrictJson.read(text);
        JsonNode expected = JACKSON_TREE.readTree(text);
        sameNodes(read, expected, text);
        assertThat(read.toString()).as(text).isEqualTo(expected.toString());
        assertThat(read).as(text).isEqualTo(expected);
        assertThat(expected).as(text).isEqualTo(read);
        assertThat(read.hashCode()).as(text).isEqualTo(expected.hashCode());
        assertThat(FrozenJson.freeze(read)).isSameAs(read);
    }

    private static void sameNodes(JsonNode read, JsonNode expected, String text) {
        assertThat(read.getNodeType()).as(text).isEqualTo(expected.getNodeType());
        if (read.isObject()) {
            assertThat(FrozenJson.isFrozen(read)).as(text).isTrue();
            assertThat(read.propertyNames()).as(text).containsExactlyElementsOf(expected.propertyNames());
            for (String name : expected.propertyNames()) {
                sameNodes(read.get(name), expected.get(name), text);
            }
        } else if (read.isArray()) {
            assertThat(FrozenJson.isFrozen(read)).as(text).isTrue();
            assertThat(read.size()).as(text).isEqualTo(expected.size());
            for (int i = 0; i < read.size(); i++) {
                sameNodes(read.get(i), expected.get(i), text);
            }
        } else {
            assertThat(read.getClass()).as(text).isEqualTo(expected.getClass());
            assertThat(read).as(text).isEqualTo(expected);
        }
    }

    @Property(tries = 150)
    void anyJsonReadsAsJacksonsTreeReadsIt(@ForAll("json") String text) throws SyntaxError {
        sameAsJacksonsTree(text);
    }

    @Property(tries = 100)
    void aWholeTextReadsAsTheMappersTreeReadsIt(@ForAll("json") String text) {
        JsonNode read = FrozenTreeReader.readWhole(text);
        JsonNode expected = Jackson.JSON.readTree(text);
        assertThat(read).as(text).isNotNull();
        sameNodes(read, expected, text);
        assertThat(read.toString()).as(text).isEqualTo(expected.toString());
        assertThat(read).as(text).isEqualTo(expected);
    }

    @Example
    void whatIsNotExactlyOneValueIsLeftToTheMapper() {
        for (String text : new String[] {"", "  ", "{} {}", "{\"a\":1} x", "{\"a\":", "[1,]", "{'a':1}", "NaN"}) {
            assertThat(FrozenTreeReader.readWhole(text)).as(text).isNull();
        }
        JsonNode doubles = FrozenTreeReader.readWhole("{\"n\":1.50,\"e\":1e2}");
        assertThat(doubles).isEqualTo(Jackson.JSON.readTree("{\"n\":1.50,\"e\":1e2}"));
        assertThat(doubles.get("n").isDouble()).isTrue();
    }

    @Example
    void numbersKeepTheirKindAndDigits() throws SyntaxError {
        for (String number : new String[] {"0", "-0", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
                "9223372036854775808", "123456789012345678901234567890", "1.0", "1.50", "-0.0", "0.000", "1e400",
                "1E+2", "2.5e-3", "123456789.123456789123456789"}) {
            sameAsJacksonsTree(number);
            sameAsJacksonsTree("{\"n\":" + number + ",\"a\":[" + number + "]}");
        }
    }

    @Example
    void aRepeatedKeyKeepsItsFirstPlaceAndItsLastValue() throws SyntaxError {
        sameAsJacksonsTree("{\"a\":1,\"b\":2,\"a\":3}");
        StringBuilder large = new StringBuilder("{");
        for (int i = 0; i < 40; i++) {
            large.append("\"k").append(i % 25).append("\":").append(i).append(',');
        }
        large.append("\"last\":{}}");
        sameAsJacksonsTree(large.toString());
        assertThat(StrictJson.read(large.toString()).get("k3").intValue()).isEqualTo(28);
    }

    @Example
    void theTreeRefusesEveryChange() throws SyntaxError {
        for (String text : new String[] {"{\"a\":[1,{\"b\":2}],\"c\":\"d\"}", large()}) {
            ObjectNode root = (ObjectNode) StrictJson.read(text);
            Iterator<Map.Entry<String, JsonNode>> entries = root.properties().iterator();
            Map.Entry<String, JsonNode> first = entries.next();
            for (Runnable change : new Runnable[] {() -> root.put("z", 1), () -> root.remove("a"), root::removeAll,
                    () -> root.set("c", null), () -> root.withObjectProperty("n"), () -> first.setValue(null),
                    entries::remove, () -> root.propertyNames().clear()}) {
                assertThatThrownBy(change::run).as(text).isInstanceOf(UnsupportedOperationException.class);
            }
            ArrayNode array = (ArrayNode) StrictJson.read("[1,[2],{\"x\":3}]");
            for (Runnable change : new Runnable[] {() -> array.add(3), () -> array.remove(0), () -> array.set(0, root),
                    array::removeAll, () -> ((ArrayNode) array.get(1)).add(1), () -> ((ObjectNode) array.get(2)).put("y", 1)}) {
                assertThatThrownBy(change::run).isInstanceOf(UnsupportedOperationException.class);
            }
            ObjectNode copy = root.deepCopy();
            copy.put("z", 1);
            assertThat(copy.get("z").intValue()).isEqualTo(1);
            assertThat(root.has("z")).isFalse();
        }
    }

    private static String large() {
        StringBuilder text = new StringBuilder("{\"a\":0,\"c\":1");
        for (int i = 0; i < 30; i++) {
            text.append(",\"p").append(i).append("\":").append(i);
        }
        return text.append('}').toString();
    }

    @Provide
    Arbitrary<String> json() {
        return value(3);
    }

    private static Arbitrary<String> value(int depth) {
        Arbitrary<String> leaf = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12).map(StrictJsonTreeProperties::quoted),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.bigIntegers().between(new java.math.BigInteger("-1" + "0".repeat(30)),
                        new java.math.BigInteger("1" + "0".repeat(30))).map(String::valueOf),
                Arbitraries.bigDecimals().ofScale(6).map(d -> d.toPlainString()),
                Arbitraries.doubles().map(d -> Double.isFinite(d) ? Double.toString(d) : "1.5E300"),
                Arbitraries.of("true", "false", "null", "0.0", "1e2", "-1.25E-7", "\"\""));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<String> key = Arbitraries.of("a", "b", "c", "city", "n", "x", "").injectDuplicates(0.3);
        Arbitrary<String> member = Combinators.combine(key, Arbitraries.lazy(() -> value(depth - 1)))
                .as((k, v) -> quoted(k) + " : " + v);
        Arbitrary<String> object = member.list().ofMaxSize(8).map(members -> "{" + String.join(",", members) + "}");
        Arbitrary<String> array = Arbitraries.lazy(() -> value(depth - 1)).list().ofMaxSize(4)
                .map(items -> "[ " + String.join(", ", items) + "]");
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, leaf), net.jqwik.api.Tuple.of(2, object),
                net.jqwik.api.Tuple.of(1, array));
    }

    private static String quoted(String text) {
        return Jackson.JSON.writeValueAsString(text);
    }
}
