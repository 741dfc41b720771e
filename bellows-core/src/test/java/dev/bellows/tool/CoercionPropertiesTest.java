package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.internal.ArgumentValidator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Coercion forgives slips; it must never make a different argument out of one. For any schema
 * and value: when the check passes, the result passes the schema as it is, and it says what
 * the value said: every change is one of the lossless ones ("3" for 3, 3.0 for 3, "TRUE" for
 * true, x for [x], JSON text for its value, an enum value in another case, a null optional
 * property left out). A value the validator accepts as written comes back unchanged.
 */
class CoercionPropertiesTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final Map<String, com.networknt.schema.Schema> COMPILED = new java.util.concurrent.ConcurrentHashMap<>();

    private static final List<String> PROPERTY_SCHEMAS = List.of(
            "{'type':'integer'}", "{'type':'integer','minimum':0,'maximum':10}", "{'type':'number'}",
            "{'type':'boolean'}", "{'type':'string'}", "{'type':'string','maxLength':3}",
            "{'enum':['celsius','fahrenheit','Kelvin','kelvin']}", "{'type':'array','items':{'type':'integer'}}",
            "{'type':'array','items':{'type':'string'},'minItems':2}", "{'type':['integer','null']}",
            "{'type':'object','properties':{'x':{'type':'integer'}},'required':['x']}",
            "{'type':'string','format':'date'}", "{'anyOf':[{'type':'integer'},{'type':'boolean'}]}",
            "{'type':'integer','not':{'const':3}}", "{'const':'on'}", "{'type':'string','pattern':'^[0-9]+$'}");

    private static final List<String> VALUES = List.of(
            "3", "'3'", "3.0", "'3.0'", "'3.5'", "3.5", "1e2", "-0", "'007'", "'0x1F'", "' 3'", "'three'",
            "true", "'true'", "'TRUE'", "'yes'", "1", "0", "null", "[]", "['1']", "[1,2]", "'[1, 2]'", "'[\"a\"]'",
            "'{\"x\": \"4\"}'", "{'x':'4'}", "{'x':4.0}", "{}", "'celsius'", "'CELSIUS'", "'kelvin'", "'KELVIN'",
            "'2025-01-31'", "'2025-02-30'", "'ON'", "'on'", "'12'", "12", "99999999999999999999", "'abcd'", "''");

    @Provide
    Arbitrary<Map.Entry<String, String>> cases() {
        return Combinators.combine(Arbitraries.of(PROPERTY_SCHEMAS), Arbitraries.of(VALUES), Arbitraries.of(true, false))
                .as((schema, value, required) -> Map.entry(
                        "{'type':'object','properties':{'v':" + schema + "}" + (required ? ",'required':['v']" : "") + "}",
                        "{'v':" + value + "}"));
    }

    @Property(tries = 1500)
    void coercionNeverTurnsAValueIntoADifferentOne(@ForAll("cases") Map.Entry<String, String> c) throws Exception {
        ArgumentSchema schema = ArgumentValidator.compiled(Json.object(c.getKey()));
        JsonNode given = Json.parse(c.getValue());
        JsonNode result;
        try {
            result = schema.check(null, given);
        } catch (InvalidArgumentsException refused) {
            return; // refusing is always allowed; what matters is what comes through
        }
        // The result is valid as it stands: checking it again changes nothing.
        assertThat(schema.check(null, result)).as("re-checking %s", result).isEqualTo(result);
        if (!Coercer.validate(compiled(c.getKey()), given).isEmpty()) {
            assertThat(sameMeaning(given.get("v"), result.get("v")))
                    .as("%s under %s became %s", given, c.getKey(), result).isTrue();
        } else {
            // Valid as written: unchanged, but for 3.0 written as 3 where an integer is wanted.
            JsonNode before = given.get("v");
            JsonNode after = result.get("v");
            assertThat(sameButForNumberNotation(before, after))
                    .as("%s under %s became %s", given, c.getKey(), result).isTrue();
        }
    }

    private static boolean sameButForNumberNotation(JsonNode before, JsonNode after) {
        if (before.isNumber() && after.isNumber()) {
            return before.decimalValue().compareTo(after.decimalValue()) == 0;
        }
        if (before.getNodeType() != after.getNodeType() || before.size() != after.size()) {
            return false;
        }
        if (before.isArray()) {
            for (int i = 0; i < before.size(); i++) {
                if (!sameButForNumberNotation(before.get(i), after.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (before.isObject()) {
            var names = before.propertyNames().iterator();
            while (names.hasNext()) {
                String name = names.next();
                if (!after.has(name) || !sameButForNumberNotation(before.get(name), after.get(name))) {
                    return false;
                }
            }
            return true;
        }
        return before.equals(after);
    }

    private static com.networknt.schema.Schema compiled(String schema) {
        return COMPILED.computeIfAbsent(schema, s -> SchemaCompiler.compile(Json.object(s)).schema());
    }

    /** True when {@code after} is {@code before} written another way, by one of the lossless coercions. */
    static boolean sameMeaning(JsonNode before, JsonNode after) throws Exception {
        if (after == null) {
            return before == null || before.isNull(); // a null optional property, taken as absent
        }
        if (before.equals(after)) {
            return true;
        }
        if (before.isNumber() && after.isNumber()) {
            return before.decimalValue().compareTo(after.decimalValue()) == 0;
        }
        if (before.isString()) {
            String text = before.stringValue(null);
            if (after.isNumber()) {
                return text.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")
                        && new BigDecimal(text).compareTo(after.decimalValue()) == 0;
            }
            if (after.isBoolean()) {
                return text.toLowerCase(Locale.ROOT).equals(String.valueOf(after.booleanValue()));
            }
            if (after.isString()) {
                return text.equalsIgnoreCase(after.stringValue(null)); // an enum value in another case
            }
            if (after.isContainer() && (text.strip().startsWith("[") || text.strip().startsWith("{"))) {
                return sameMeaningDeep(JSON.readTree(text), after);
            }
        }
        if ((before.isIntegralNumber() || before.isBoolean()) && after.isString()) {
            return before.asString().equals(after.stringValue(null));
        }
        if (after.isArray() && after.size() == 1 && !before.isArray()) {
            return sameMeaning(before, after.get(0));
        }
        return sameMeaningDeep(before, after);
    }

    private static boolean sameMeaningDeep(JsonNode before, JsonNode after) throws Exception {
        if (before.isArray() && after.isArray() && before.size() == after.size()) {
            for (int i = 0; i < before.size(); i++) {
                if (!sameMeaning(before.get(i), after.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (before.isObject() && after.isObject()) {
            var names = before.propertyNames().iterator();
            while (names.hasNext()) {
                String name = names.next();
                if (!sameMeaning(before.get(name), after.get(name))) {
                    return false;
                }
            }
            return after.size() <= before.size();
        }
        return before.equals(after);
    }
}
