package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.internal.ArgumentValidator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Schema, validator and binding agree: whatever Jackson writes for a record validates against
 * the record's schema unchanged and binds back equal, and so does the same JSON with every
 * number and boolean turned into a string, the slip models make most.
 */
class SchemaRoundTripTest {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    enum Level { LOW, HIGH }

    record Inner(String name, Set<Integer> ids, BigInteger big) {}

    record Head(String text, int count, long large, double ratio, boolean flag, Level level, List<String> tags,
                Map<String, Integer> counts) {}

    record Sample(String text, int count, long large, double ratio, boolean flag, Level level, List<String> tags,
                  Map<String, Integer> counts, Optional<String> note, OptionalInt maybe, Inner inner,
                  Optional<List<Inner>> more, Optional<Double> fraction) {}

    private static final JsonNode SCHEMA = JsonSchemas.forRecord(Sample.class);

    private final TypedTool<Sample, Sample> identity = TypedTool.of("identity", "Returns its arguments",
            Sample.class, (context, sample) -> ToolResult.of(sample));

    @Property(tries = 300)
    void writtenJsonValidatesUnchangedAndBindsBackEqual(@ForAll("samples") Sample sample) throws Exception {
        JsonNode written = MAPPER.valueToTree(sample);
        JsonNode validated = ArgumentValidator.validate("identity", SCHEMA, written);
        assertThat(withoutNulls(validated)).isEqualTo(withoutNulls(written));
        assertThat(identity.call(ToolContext.of("local", "identity"), written).output()).isEqualTo(sample);
    }

    @Property(tries = 300)
    void scalarsWrittenAsStringsBindBackEqual(@ForAll("samples") Sample sample) throws Exception {
        JsonNode sloppy = stringify(MAPPER.valueToTree(sample));
        assertThat(identity.call(ToolContext.of("local", "identity"), sloppy).output()).isEqualTo(sample);
    }

    @Provide
    Arbitrary<Sample> samples() {
        Arbitrary<String> strings = Arbitraries.strings().ofMaxLength(12);
        Arbitrary<Inner> inner = Combinators.combine(strings, Arbitraries.integers().set().ofMaxSize(3),
                Arbitraries.bigIntegers().between(BigInteger.TEN.pow(30).negate(), BigInteger.TEN.pow(30)))
                .as(Inner::new);
        Arbitrary<Head> head = Combinators.combine(strings, Arbitraries.integers(), Arbitraries.longs(),
                Arbitraries.doubles(), Arbitraries.of(true, false), Arbitraries.of(Level.class),
                strings.list().ofMaxSize(3), Arbitraries.maps(strings, Arbitraries.integers()).ofMaxSize(3))
                .as(Head::new);
        return Combinators.combine(head, strings.optional(), Arbitraries.integers().optional(), inner,
                        inner.list().ofMaxSize(2).optional(), Arbitraries.doubles().optional())
                .as((h, note, maybe, in, more, fraction) -> new Sample(h.text(), h.count(), h.large(), h.ratio(),
                        h.flag(), h.level(), h.tags(), h.counts(), note,
                        maybe.map(OptionalInt::of).orElse(OptionalInt.empty()), in, more, fraction));
    }

    /** Every number and boolean as the string a model might have written instead. */
    private static JsonNode stringify(JsonNode node) {
        if (node.isNumber() || node.isBoolean()) {
            return JsonNodeFactory.instance.stringNode(node.asString());
        }
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            node.properties().forEach(e -> copy.set(e.getKey(), stringify(e.getValue())));
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            node.forEach(item -> copy.add(stringify(item)));
            return copy;
        }
        return node;
    }

    /** Jackson writes an empty Optional as null; the validator reads that as absent. */
    private static JsonNode withoutNulls(JsonNode node) {
        ObjectNode copy = ((ObjectNode) node).deepCopy();
        List.copyOf(copy.properties()).forEach(e -> {
            if (e.getValue().isNull()) {
                copy.remove(e.getKey());
            }
        });
        return copy;
    }
}
