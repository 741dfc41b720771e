package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.tool.internal.ArgumentValidator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ArgumentValidatorTest {

    private static final ObjectNode WEATHER = Json.object("""
            {'type':'object','properties':{'city':{'type':'string'},
             'unit':{'type':'string','enum':['celsius','fahrenheit']}},
             'required':['city'],'additionalProperties':false}""");

    @Test
    void theMessageListsEveryProblemThenTheExpectedShape() {
        InvalidArgumentsException e = invalid("get_weather", WEATHER, "{'unit':'kelvin'}");
        assertThat(e).hasMessage("invalid arguments for get_weather: \"unit\": expected one of \"celsius\","
                + " \"fahrenheit\", got \"kelvin\"; \"city\": required but missing. Expected arguments:"
                + " {\"city\": string, \"unit\"?: \"celsius\"|\"fahrenheit\"}");
        assertThat(e.problems()).containsExactly(
                new ArgumentProblem("unit", "expected one of \"celsius\", \"fahrenheit\", got \"kelvin\""),
                new ArgumentProblem("city", "required but missing"));
        assertThat(e.toolName()).contains("get_weather");
        assertThat(e).isInstanceOf(ToolException.class);
    }

    @Test
    void withoutAToolName() {
        assertThatThrownBy(() -> ArgumentValidator.validate(WEATHER, Json.parse("{'city':7.5}")))
                .hasMessage("invalid arguments: \"city\": expected string, got 7.5 (text goes in quotes). Expected"
                        + " arguments: {\"city\": string, \"unit\"?: \"celsius\"|\"fahrenheit\"}");
    }

    @Test
    void aMisspeltPropertyGetsASuggestion() {
        assertThat(invalid("get_weather", WEATHER, "{'citty':'Lisbon'}").problems()).containsExactly(
                new ArgumentProblem("citty", "unknown property; did you mean \"city\"?"),
                new ArgumentProblem("city", "required but missing"));
        assertThat(invalid("get_weather", WEATHER, "{'city':'Lisbon','when':'now'}").problems()).containsExactly(
                new ArgumentProblem("when", "unknown property; the properties are \"city\", \"unit\""));
    }

    @Test
    void goodArgumentsComeBackEqual() throws Exception {
        JsonNode arguments = Json.parse("{'city':'Lisbon','unit':'celsius'}");
        assertThat(ArgumentValidator.validate(WEATHER, arguments)).isEqualTo(arguments);
    }

    @Test
    void theInputIsNeverChanged() throws Exception {
        ObjectNode schema = Json.object("{'type':'object','properties':{'n':{'type':'integer'},"
                + "'tags':{'type':'array','items':{'type':'string'}},'extra':{}}}");
        JsonNode arguments = Json.parse("{'n':'3','tags':'one','extra':{'deep':[1]}}");
        JsonNode before = arguments.deepCopy();
        JsonNode result = ArgumentValidator.validate(schema, arguments);
        assertThat(arguments).isEqualTo(before);
        assertThat(result.toString()).isEqualTo("{\"n\":3,\"tags\":[\"one\"],\"extra\":{\"deep\":[1]}}");
        ((ObjectNode) result.get("extra")).put("changed", true);
        assertThat(arguments).isEqualTo(before);
    }

    @Test
    void pathsNameNestedFieldsAndIndexes() {
        ObjectNode schema = Json.object("""
                {'type':'object','properties':{'steps':{'type':'array','items':{'type':'object',
                 'properties':{'description':{'type':'string'},'status':{'enum':['pending','done']}},
                 'required':['description','status']}},'odd key':{'type':'integer'}}}""");
        InvalidArgumentsException e = invalid(null, schema, """
                {'steps':[{'description':'a','status':'pending'},{'description':'b','status':'done'},
                 {'description':'c','status':'doing'},{'status':'done'}],'odd key':'x'}""");
        assertThat(e.problems()).containsExactly(
                new ArgumentProblem("steps[2].status", "expected one of \"pending\", \"done\", got \"doing\""),
                new ArgumentProblem("steps[3].description", "required but missing"),
                new ArgumentProblem("[\"odd key\"]", "expected integer, got \"x\""));
    }

    @Test
    void aRootThatIsNotAnObject() {
        assertThat(invalid(null, WEATHER, "['Lisbon']").problems())
                .containsExactly(new ArgumentProblem("(root)", "expected object, got an array of 1 item"));
        assertThat(invalid(null, WEATHER, "['Lisbon']")).hasMessageStartingWith("invalid arguments: (root): expected");
    }

    @Nested
    class Coercions {

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
                "integer | '3'          | 3",
                "integer | '-42'        | -42",
                "integer | 3.0          | 3",
                "integer | '3.0'        | 3",
                "integer | 1e2          | 100",
                "integer | '9223372036854775808' | 9223372036854775808",
                "number  | '2.5'        | 2.5",
                "number  | '-0.125e1'   | -1.25",
                "number  | '7'          | 7",
                "boolean | 'true'       | true",
                "boolean | 'FALSE'      | false",
                "string  | 42           | '42'",
                "string  | true         | 'true'",
                "array   | 'one'        | ['one']",
                "array   | 7            | [7]",
                "array   | '[1, 2]'     | [1,2]",
                "object  | '{\"a\": 1}' | {'a':1}",
        })
        void losslessSlipsAreCorrected(String type, String given, String expected) throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'v':{'type':'" + type + "'}}}");
            JsonNode result = ArgumentValidator.validate(schema, Json.parse("{'v':" + given + "}"));
            assertThat(result.get("v").toString()).isEqualTo(Json.normalize(expected));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
                "integer | '3.5'   | expected integer, got \"3.5\"",
                "integer | 3.5     | expected integer, got 3.5",
                "integer | '007'   | expected integer, got \"007\"",
                "integer | '0x1F'  | expected integer, got \"0x1F\"",
                "integer | ' 3'    | expected integer, got \" 3\"",
                "integer | true    | expected integer, got true",
                "number  | 'NaN'   | expected number, got \"NaN\"",
                "number  | 'three' | expected number, got \"three\"",
                "boolean | 'yes'   | expected boolean, got \"yes\"",
                "boolean | 1       | expected boolean, got 1",
                "string  | 1.10    | expected string, got 1.1 (text goes in quotes)",
                "string  | {}      | expected string, got an object",
                "string  | null    | expected string, got null",
                "array   | null    | expected array, got null",
                "object  | 'x'     | expected object, got \"x\"",
                "null    | 0       | expected null, got 0",
        })
        void lossySlipsAreRefused(String type, String given, String message) {
            ObjectNode schema = Json.object("{'type':'object','properties':{'v':{'type':'" + type + "'}},"
                    + "'required':['v']}");
            assertThat(invalid(null, schema, "{'v':" + given + "}").problems())
                    .containsExactly(new ArgumentProblem("v", message));
        }

        @Test
        void aSingleValueBecomesAnArrayWhoseItemIsCheckedAndCoercedToo() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'ids':{'type':'array',"
                    + "'items':{'type':'integer'}}}}");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'ids':'12'}")).toString())
                    .isEqualTo("{\"ids\":[12]}");
            assertThat(invalid(null, schema, "{'ids':'x'}").problems())
                    .containsExactly(new ArgumentProblem("ids[0]", "expected integer, got \"x\""));
        }

        @Test
        void enumValuesMatchIgnoringCaseOnlyWhenThatIsUnambiguous() throws Exception {
            assertThat(ArgumentValidator.validate(WEATHER, Json.parse("{'city':'x','unit':'Celsius'}")).get("unit")
                    .asString()).isEqualTo("celsius");
            ObjectNode ambiguous = Json.object("{'type':'object','properties':{'v':{'enum':['a','A']}}}");
            assertThat(invalid(null, ambiguous, "{'v':'b'}").problems()).hasSize(1);
            assertThat(invalid(null, ambiguous, "{'v':'a '}").problems()).hasSize(1);
            InvalidArgumentsException e = catchThrowableOfType(InvalidArgumentsException.class,
                    () -> ArgumentValidator.validate(ambiguous, Json.parse("{'v':'a'}")));
            assertThat(e).isNull();
        }

        @Test
        void nullForAnOptionalPropertyIsTakenAsAbsent() throws Exception {
            assertThat(ArgumentValidator.validate(WEATHER, Json.parse("{'city':'x','unit':null}")).toString())
                    .isEqualTo("{\"city\":\"x\"}");
            assertThat(invalid(null, WEATHER, "{'city':null}").problems())
                    .containsExactly(new ArgumentProblem("city", "expected string, got null"));
        }

        @Test
        void nullStaysWhenTheSchemaAllowsIt() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'a':{'type':['string','null']},"
                    + "'b':{'type':'string','nullable':true}}}");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'a':null,'b':null}")).toString())
                    .isEqualTo("{\"a\":null,\"b\":null}");
        }

        @Test
        void withSeveralTypesAValueThatFitsOneAsWrittenIsNotCoerced() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'v':{'type':['string','integer']}}}");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'v':'3'}")).get("v").isString()).isTrue();
            ObjectNode schema2 = Json.object("{'type':'object','properties':{'v':{'type':['integer','null']}}}");
            assertThat(ArgumentValidator.validate(schema2, Json.parse("{'v':'3'}")).get("v").intValue()).isEqualTo(3);
        }
    }

    @Nested
    class Keywords {

        @Test
        void numericBounds() {
            ObjectNode schema = Json.object("""
                    {'type':'object','properties':{'a':{'type':'integer','minimum':1,'maximum':10},
                     'b':{'type':'number','exclusiveMinimum':0,'exclusiveMaximum':1},
                     'c':{'type':'number','minimum':0,'exclusiveMinimum':true},
                     'd':{'type':'integer','multipleOf':5}}}""");
            assertThat(invalid(null, schema, "{'a':0,'b':1,'c':0,'d':7}").problems()).containsExactly(
                    new ArgumentProblem("a", "must be at least 1, got 0"),
                    new ArgumentProblem("b", "must be less than 1, got 1"),
                    new ArgumentProblem("c", "must be greater than 0, got 0"),
                    new ArgumentProblem("d", "must be a multiple of 5, got 7"));
            assertThat(invalid(null, schema, "{'a':'11','b':0}").problems()).containsExactly(
                    new ArgumentProblem("a", "must be at most 10, got 11"),
                    new ArgumentProblem("b", "must be greater than 0, got 0"));
        }

        @Test
        void stringLengthsCountCharactersAndPatternsAreFound() throws Exception {
            ObjectNode schema = Json.object("""
                    {'type':'object','properties':{'name':{'type':'string','minLength':2,'maxLength':3},
                     'id':{'type':'string','pattern':'[0-9]{3}'},'nonEmpty':{'type':'string','minLength':1}}}""");
            assertThat(invalid(null, schema, "{'name':'a','id':'ab12','nonEmpty':''}").problems()).containsExactly(
                    new ArgumentProblem("name", "must be at least 2 characters long, got 1"),
                    new ArgumentProblem("id", "must match the regular expression [0-9]{3}, got \"ab12\""),
                    new ArgumentProblem("nonEmpty", "must not be empty"));
            // Two emoji are two characters, though four UTF-16 units; the pattern is found, not matched whole.
            ArgumentValidator.validate(schema, Json.parse("{'name':'\uD83D\uDE00\uD83D\uDE00','id':'x123y'}"));
            assertThat(invalid(null, schema, "{'name':'abcd'}").problems())
                    .containsExactly(new ArgumentProblem("name", "must be at most 3 characters long, got 4"));
        }

        @Test
        void arraySizesAndUniqueness() {
            ObjectNode schema = Json.object("{'type':'object','properties':{'v':{'type':'array','minItems':2,"
                    + "'maxItems':3,'uniqueItems':true}}}");
            assertThat(invalid(null, schema, "{'v':[1]}").problems())
                    .containsExactly(new ArgumentProblem("v", "must have at least 2 items, got 1"));
            assertThat(invalid(null, schema, "{'v':[1,2,3,4]}").problems())
                    .containsExactly(new ArgumentProblem("v", "must have at most 3 items, got 4"));
            assertThat(invalid(null, schema, "{'v':[1,2,1.0]}").problems())
                    .containsExactly(new ArgumentProblem("v[2]", "repeats item 0; items must be unique"));
        }

        @Test
        void constAndTupleItems() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'kind':{'const':'point'},"
                    + "'at':{'type':'array','prefixItems':[{'type':'number'},{'type':'string'}]}}}");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'kind':'point','at':['1.5',2]}")).toString())
                    .isEqualTo("{\"kind\":\"point\",\"at\":[1.5,\"2\"]}");
            assertThat(invalid(null, schema, "{'kind':'line'}").problems())
                    .containsExactly(new ArgumentProblem("kind", "expected \"point\", got \"line\""));
        }

        @Test
        void additionalPropertiesAsASchemaAndPatternProperties() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','patternProperties':{'^x-':{'type':'string'}},"
                    + "'additionalProperties':{'type':'integer'}}");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'a':'1','x-b':2}")).toString())
                    .isEqualTo("{\"a\":1,\"x-b\":\"2\"}");
            assertThat(invalid(null, schema, "{'a':'one'}").problems())
                    .containsExactly(new ArgumentProblem("a", "expected integer, got \"one\""));
        }

        @Test
        void refsToDefsAndDefinitions() throws Exception {
            ObjectNode schema = Json.object("""
                    {'type':'object','properties':{'from':{'$ref':'#/$defs/point'},'to':{'$ref':'#/definitions/pt'}},
                     'required':['from','to'],
                     '$defs':{'point':{'type':'object','properties':{'x':{'type':'integer'}},'required':['x']}},
                     'definitions':{'pt':{'$ref':'#/$defs/point'}}}""");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'from':{'x':'1'},'to':{'x':2}}")).toString())
                    .isEqualTo("{\"from\":{\"x\":1},\"to\":{\"x\":2}}");
            InvalidArgumentsException e = invalid("move", schema, "{'from':{},'to':{'x':'a'}}");
            assertThat(e.problems()).containsExactly(new ArgumentProblem("from.x", "required but missing"),
                    new ArgumentProblem("to.x", "expected integer, got \"a\""));
            assertThat(e.getMessage()).endsWith("Expected arguments: {\"from\": {\"x\": integer}, \"to\": {\"x\": integer}}");
        }

        @Test
        void aRecursiveSchemaValidatesRecursiveValues() throws Exception {
            ObjectNode schema = Json.object("""
                    {'$ref':'#/$defs/node','$defs':{'node':{'type':'object','properties':{'name':{'type':'string'},
                     'children':{'type':'array','items':{'$ref':'#/$defs/node'}}},'required':['name']}}}""");
            ArgumentValidator.validate(schema, Json.parse("{'name':'a','children':[{'name':'b','children':[]}]}"));
            assertThat(invalid(null, schema, "{'name':'a','children':[{'children':[{'name':{}}]}]}").problems())
                    .containsExactly(new ArgumentProblem("children[0].children[0].name", "expected string, got an object"),
                            new ArgumentProblem("children[0].name", "required but missing"));
        }

        @Test
        void brokenSchemasAreTheToolsBugNotTheModels() {
            assertThatThrownBy(() -> ArgumentValidator.validate(Json.object("{'$ref':'#/$defs/none'}"), Json.parse("{}")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the tool's JSON Schema refers to #/$defs/none, which it does not define (under $defs"
                            + " or definitions)");
            assertThatThrownBy(() -> ArgumentValidator.validate(Json.object("{'$ref':'#'}"), Json.parse("{}")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("$ref cycle");
        }

        @Test
        void unknownKeywordsUnassertedFormatsAndRemoteRefsAreIgnored() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'a':{'type':'string','format':'hostname',"
                    + "'x-custom':1},'n':{'type':'integer','format':'int32'},'b':{'$ref':'https://example.com/s.json'}}}");
            ArgumentValidator.validate(schema, Json.parse("{'a':'not a host name!','n':5,'b':[1]}"));
        }

        // Stricter than the hand-written checker, which skipped patterns Java could not compile
        // (and ignored format): a broken schema is now the tool's error, found before any call.
        @Test
        void aPatternJavaCannotCompileIsABrokenSchema() {
            ObjectNode schema = Json.object("{'type':'object','properties':{'a':{'type':'string','pattern':'(unclosed'}}}");
            assertThatThrownBy(() -> ArgumentValidator.validate(schema, Json.parse("{'a':'x'}")))
                    .isInstanceOf(InvalidSchemaException.class)
                    .hasMessage("the tool's JSON Schema has a pattern that is not a regular expression at"
                            + " /properties/a/pattern: \"(unclosed\" (Unclosed group)");
        }

        @Test
        void anyOfTakesAnExactMatchBeforeACoercedOne() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'v':{'anyOf':[{'type':'integer'},"
                    + "{'type':'string'}]}}}");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'v':'3'}")).get("v").isString()).isTrue();
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'v':3}")).get("v").isInt()).isTrue();
            assertThat(invalid(null, schema, "{'v':[]}").problems())
                    .containsExactly(new ArgumentProblem("v", "expected integer|string, got an empty array"));
        }

        @Test
        void oneOfReportsTheProblemsOfTheChoiceWhoseTypeMatched() {
            ObjectNode schema = Json.object("""
                    {'type':'object','properties':{'shape':{'oneOf':[
                      {'type':'object','properties':{'radius':{'type':'number'}},'required':['radius']},
                      {'type':'string','enum':['unit']}]}}}""");
            assertThat(invalid(null, schema, "{'shape':{'radius':'big'}}").problems())
                    .containsExactly(new ArgumentProblem("shape.radius", "expected number, got \"big\""));
        }

        @Test
        void allOfAppliesEverySchema() throws Exception {
            ObjectNode schema = Json.object("{'type':'object','properties':{'v':{'allOf':[{'type':'integer'},"
                    + "{'minimum':5}]}}}");
            assertThat(ArgumentValidator.validate(schema, Json.parse("{'v':'6'}")).get("v").intValue()).isEqualTo(6);
            assertThat(invalid(null, schema, "{'v':'4'}").problems())
                    .containsExactly(new ArgumentProblem("v", "must be at least 5, got 4"));
        }

        @Test
        void booleanSchemas() {
            ObjectNode schema = Json.object("{'type':'object','properties':{'any':true,'none':false}}");
            assertThat(invalid(null, schema, "{'any':[1],'none':1}").problems())
                    .containsExactly(new ArgumentProblem("none", "not allowed here"));
        }
    }

    @Test
    void longTextIsCutInMessages() {
        String longText = "x".repeat(100);
        assertThat(invalid(null, WEATHER, "{'city':'x','unit':'" + longText + "'}").problems().getFirst().message())
                .endsWith("got \"" + "x".repeat(60) + "…\"");
    }

    @Test
    void manyProblemsAreSummarisedInTheMessageButAllListed() {
        ObjectNode schema = Json.object("{'type':'object','properties':{'v':{'type':'array','items':{'type':'integer'}}}}");
        String many = "[" + "'x',".repeat(24) + "'x']";
        InvalidArgumentsException e = invalid(null, schema, "{'v':" + many + "}");
        assertThat(e.problems()).hasSize(25);
        assertThat(e.getMessage()).contains("\"v[19]\": expected integer").doesNotContain("v[20]")
                .contains("; and 5 more.");
    }

    static InvalidArgumentsException invalid(String tool, ObjectNode schema, String arguments) {
        InvalidArgumentsException e = catchThrowableOfType(InvalidArgumentsException.class,
                () -> ArgumentValidator.validate(tool, schema, Json.parse(arguments)));
        assertThat(e).as("arguments %s should be invalid", arguments).isNotNull();
        return e;
    }
}
