package dev.bellows.tool;

import dev.bellows.json.internal.FrozenJson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The quick yes of {@link PlainSchema} must never differ from the full check: whatever it
 * accepts, the validator accepts too, and the coercions leave it as it is.
 */
class PlainSchemaPropertiesTest {

    private static final List<String> PROPERTY_SCHEMAS = List.of(
            "{'type':'integer'}", "{'type':'integer','description':'n'}", "{'type':'number'}", "{'type':'boolean'}",
            "{'type':'string'}", "{'type':'null'}", "{}", "{'description':'anything'}", "{'type':'string','maxLength':3}",
            "{'type':'integer','minimum':0}", "{'enum':['a','b']}", "{'type':['integer','null']}",
            "{'type':'array','items':{'type':'integer'}}", "{'type':'string','format':'date'}",
            "{'type':'object','properties':{'x':{'type':'integer'}},'required':['x']}",
            "{'type':'object','properties':{'x':{'type':'number'}},'additionalProperties':false}",
            "{'properties':{'x':{'type':'integer'}}}", "{'required':['x']}", "{'additionalProperties':false}");

    private static final List<String> VALUES = List.of(
            "3", "'3'", "3.0", "3.5", "1e2", "-0", "99999999999999999999", "true", "'true'", "null", "[]", "[1, 2]",
            "[1.0]", "{}", "{'x':4}", "{'x':4.0}", "{'x':'4'}", "{'y':1}", "{'y':1.5}", "{'x':4,'y':[2.0]}", "'abcd'", "''",
            "'2025-01-31'", "'a'");

    @Provide
    Arbitrary<String[]> cases() {
        Arbitrary<String> property = Arbitraries.of(PROPERTY_SCHEMAS);
        Arbitrary<String> value = Arbitraries.of(VALUES);
        return Combinators.combine(property, property, value, value, Arbitraries.integers().between(0, 7))
                .as((first, second, a, b, flags) -> {
                    String schema = "{'type':'object','description':'args','properties':{'a':" + first + ",'b':" + second + "}"
                            + ((flags & 1) != 0 ? ",'required':['a']" : "")
                            + ((flags & 2) != 0 ? ",'additionalProperties':false" : "")
                            + ((flags & 4) != 0 ? ",'$schema':'http://json-schema.org/draft-07/schema#'" : "") + "}";
                    String arguments = (flags & 4) != 0 ? "{'a':" + a + ",'b':" + b + ",'c':1}" : "{'a':" + a + ",'b':" + b + "}";
                    return new String[] {schema, (flags & 1) != 0 && a.equals("null") ? "{'b':" + b + "}" : arguments};
                });
    }

    @Property(tries = 2000)
    void whatThePlainSchemaAcceptsTheFullCheckAcceptsUnchanged(@ForAll("cases") String[] c) {
        ObjectNode schema = Json.object(c[0]);
        JsonNode arguments = Json.parse(c[1]);
        SchemaCompiler.Compiled compiled = SchemaCompiler.compile(schema);
        PlainSchema plain = PlainSchema.of(compiled.source());
        if (plain == null || !plain.accepts(arguments)) {
            return;
        }
        Coercer.Outcome full = Coercer.check(compiled.schema(), arguments.deepCopy());
        assertThat(full.errors()).as("%s against %s", c[1], c[0]).isEmpty();
        assertThat(full.value()).as("%s against %s", c[1], c[0]).isEqualTo(arguments);
    }

    @Test
    void aRecordsSchemaIsPlainAndItsUsualArgumentsPassWithoutTheValidator() throws InvalidArgumentsException {
        ObjectNode schema = Json.object("{'type':'object','description':'Two integers','properties':{'a':{'type':'integer',"
                + "'description':'the first'},'b':{'type':'integer'}},'required':['a','b'],'additionalProperties':false}");
        PlainSchema plain = PlainSchema.of(SchemaCompiler.compile(schema).source());
        assertThat(plain).isNotNull();
        assertThat(plain.accepts(Json.parse("{'a':2,'b':3}"))).isTrue();
        // Not sure: each goes to the validator, which coerces or reports.
        assertThat(plain.accepts(Json.parse("{'a':2.0,'b':3}"))).isFalse();
        assertThat(plain.accepts(Json.parse("{'a':'2','b':3}"))).isFalse();
        assertThat(plain.accepts(Json.parse("{'a':2}"))).isFalse();
        assertThat(plain.accepts(Json.parse("{'a':2,'b':3,'c':4}"))).isFalse();
        assertThat(plain.accepts(Json.parse("[2,3]"))).isFalse();

        ArgumentSchema arguments = ArgumentSchema.compile(schema);
        JsonNode given = Json.parse("{'a':2,'b':3}");
        JsonNode checked = arguments.check("add", given);
        assertThat(checked).isEqualTo(given).isNotSameAs(given);
        JsonNode frozen = FrozenJson.freeze(given);     // nothing can change it: no copy is needed
        assertThat(arguments.check("add", frozen)).isSameAs(frozen);
        assertThat(arguments.check("add", Json.parse("{'a':2.0,'b':'3'}"))).isEqualTo(given);
    }

    @Test
    void schemasBeyondThePlainOnesHaveNoPlainReading() {
        for (String schema : List.of("{'type':'object','properties':{'a':{'enum':[1]}}}",
                "{'type':'object','properties':{'a':{'type':'integer','minimum':1}}}",
                "{'type':'object','properties':{'a':{'$ref':'#/$defs/x'}},'$defs':{'x':{}}}",
                "{'type':'object','additionalProperties':{'type':'integer'}}",
                "{'type':['object','null']}", "{'properties':{'a':{}}}", "{'type':'array'}")) {
            assertThat(PlainSchema.of(SchemaCompiler.compile(Json.object(schema)).source())).as(schema).isNull();
        }
    }
}
