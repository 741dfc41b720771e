package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.tool.internal.ArgumentValidator;
import tools.jackson.databind.node.ObjectNode;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The keywords the hand-written checker ignored, versions, and broken schemas. */
class ArgumentSchemaTest {

    @Nested
    class NewlyEnforcedKeywords {

        @Test
        void not() throws Exception {
            ArgumentSchema schema = compile("{'type':'object','properties':{'name':{'type':'string',"
                    + "'not':{'enum':['admin','root']}}}}");
            schema.check(null, Json.parse("{'name':'ada'}"));
            assertThat(problems(schema, "{'name':'root'}"))
                    .containsExactly(new ArgumentProblem("name", "must not be \"admin\"|\"root\""));
        }

        @Test
        void ifThenElse() throws Exception {
            ArgumentSchema schema = compile("""
                    {'type':'object','properties':{'kind':{'enum':['file','url']},'path':{'type':'string'},
                     'url':{'type':'string'}},'required':['kind'],
                     'if':{'properties':{'kind':{'const':'file'}}},'then':{'required':['path']},'else':{'required':['url']}}""");
            schema.check(null, Json.parse("{'kind':'file','path':'/tmp/x'}"));
            schema.check(null, Json.parse("{'kind':'url','url':'https://example.com'}"));
            assertThat(problems(schema, "{'kind':'file'}"))
                    .containsExactly(new ArgumentProblem("path", "required but missing"));
            assertThat(problems(schema, "{'kind':'url','path':'/tmp/x'}"))
                    .containsExactly(new ArgumentProblem("url", "required but missing"));
        }

        @Test
        void dependentRequired() throws Exception {
            ArgumentSchema schema = compile("{'type':'object','properties':{'user':{'type':'string'},"
                    + "'password':{'type':'string'}},'dependentRequired':{'user':['password']}}");
            schema.check(null, Json.parse("{}"));
            schema.check(null, Json.parse("{'user':'a','password':'b'}"));
            assertThat(problems(schema, "{'user':'a'}"))
                    .containsExactly(new ArgumentProblem("password", "required when \"user\" is given"));
        }

        @Test
        void containsWithMinContainsAndMaxContains() throws Exception {
            ArgumentSchema schema = compile("{'type':'object','properties':{'tags':{'type':'array',"
                    + "'contains':{'const':'urgent'}},'ids':{'type':'array','contains':{'type':'integer'},"
                    + "'minContains':2,'maxContains':3}}}");
            schema.check(null, Json.parse("{'tags':['a','urgent'],'ids':['x',1,2]}"));
            assertThat(problems(schema, "{'tags':['a'],'ids':[1,'x']}")).containsExactly(
                    new ArgumentProblem("tags", "must contain an item that is \"urgent\""),
                    new ArgumentProblem("ids", "must contain at least 2 items that are integer"));
            assertThat(problems(schema, "{'ids':[1,2,3,4]}"))
                    .containsExactly(new ArgumentProblem("ids", "must contain at most 3 items that are integer"));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "date-time | 2025-01-31T09:30:00Z                 | 2025-01-31 09:30",
                "date      | 2025-01-31                           | 2025-02-30",
                "email     | ada@example.com                      | ada at example.com",
                "uuid      | 123e4567-e89b-12d3-a456-426614174000 | 123e4567",
                "uri       | https://example.com/a?b=c            | example.com/a",
                "ipv4      | 192.0.2.1                            | 192.0.2",
        })
        void assertedFormats(String format, String good, String bad) throws Exception {
            ArgumentSchema schema = compile("{'type':'object','properties':{'v':{'type':'string','format':'"
                    + format + "'}}}");
            schema.check(null, Json.parse("{'v':'" + good + "'}"));
            List<ArgumentProblem> problems = problems(schema, "{'v':'" + bad + "'}");
            assertThat(problems).hasSize(1);
            assertThat(problems.getFirst().path()).isEqualTo("v");
            assertThat(problems.getFirst().message()).startsWith("must be a valid " + format + " (")
                    .endsWith(", got \"" + bad + "\"");
        }

        @Test
        void formatsThatAreOnlyDescriptionsAndFormatsOfOtherTypes() throws Exception {
            ArgumentSchema schema = compile("{'type':'object','properties':{'host':{'type':'string','format':'hostname'},"
                    + "'n':{'type':'integer','format':'int64'},'re':{'type':'string','format':'regex'},"
                    + "'when':{'type':['string','integer'],'format':'date-time'}}}");
            schema.check(null, Json.parse("{'host':'not a host!','n':3,'re':'(','when':1700000000}"));
        }

        @Test
        void oneOfIsStrictNow() {
            // Deliberately stricter than the hand-written checker, which took oneOf as anyOf.
            ArgumentSchema schema = compile("{'type':'object','properties':{'v':{'oneOf':[{'type':'integer'},"
                    + "{'type':'number','minimum':0}]}}}");
            assertThat(problems(schema, "{'v':3}")).containsExactly(new ArgumentProblem("v",
                    "matches 2 of the choices integer|number; it must match exactly one"));
        }

        @Test
        void aCoercedValueMustPassTheWholeSchema() {
            ArgumentSchema schema = compile("{'type':'object','properties':{'n':{'type':'integer','not':{'const':3}}}}");
            assertThat(problems(schema, "{'n':'3'}")).containsExactly(new ArgumentProblem("n", "must not be 3"));
        }
    }

    @Nested
    class Versions {

        @Test
        void withoutSchemaItIs202012AndDraft07IsReadByItsSchema() throws Exception {
            assertThat(compile("{'type':'object'}").isVersion(SpecificationVersion.DRAFT_2020_12)).isTrue();
            assertThat(compile("{'type':'object'}").version()).isEqualTo("JSON Schema 2020-12");
            ArgumentSchema draft7 = compile("{'$schema':'http://json-schema.org/draft-07/schema#','type':'object'}");
            assertThat(draft7.version()).isEqualTo("JSON Schema draft-07");
            // Without the trailing '#', and with https, as servers also write it.
            assertThat(compile("{'$schema':'https://json-schema.org/draft-07/schema','type':'object'}").version())
                    .isEqualTo("JSON Schema draft-07");
            assertThat(compile("{'$schema':'http://json-schema.org/schema#','type':'object'}").version())
                    .isEqualTo("JSON Schema 2020-12");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "http://json-schema.org/draft-04/schema#     | JSON Schema draft-04",
                "http://json-schema.org/draft-06/schema#     | JSON Schema draft-06",
                "https://json-schema.org/draft/2019-09/schema | JSON Schema 2019-09",
                "https://json-schema.org/draft/2020-12/schema | JSON Schema 2020-12"})
        void everyVersionTheValidatorKnowsIsReadByItsSchema(String id, String name) throws Exception {
            ArgumentSchema schema = compile("{'$schema':'" + id + "','type':'object','properties':{'n':{'type':'integer',"
                    + "'maximum':5}},'required':['n']}");
            assertThat(schema.version()).isEqualTo(name);
            assertThat(schema.check(null, Json.parse("{'n':'4'}")).toString()).isEqualTo("{\"n\":4}");
            assertThat(problems(schema, "{'n':6}")).containsExactly(new ArgumentProblem("n", "must be at most 5, got 6"));
        }

        @Test
        void draft04ReadsItsOwnBooleanExclusiveBounds() throws Exception {
            ArgumentSchema schema = compile("{'$schema':'http://json-schema.org/draft-04/schema#','type':'object',"
                    + "'properties':{'n':{'type':'number','minimum':0,'exclusiveMinimum':true}}}");
            schema.check(null, Json.parse("{'n':0.5}"));
            assertThat(problems(schema, "{'n':0}")).hasSize(1);
        }

        @Test
        void itemsAsAListIsATupleInDraft07AndABrokenSchemaIn202012() throws Exception {
            String body = "'type':'object','properties':{'at':{'type':'array','items':[{'type':'number'},"
                    + "{'type':'string'}],'additionalItems':false}}";
            ArgumentSchema draft7 = compile("{'$schema':'http://json-schema.org/draft-07/schema#'," + body + "}");
            assertThat(draft7.check(null, Json.parse("{'at':['1.5',2]}")).toString())
                    .isEqualTo("{\"at\":[1.5,\"2\"]}");
            assertThat(problems(draft7, "{'at':[1,'a',true]}")).containsExactly(
                    new ArgumentProblem("at[2]", "unexpected item; this array takes at most 2 items"));
            assertThatThrownBy(() -> compile("{" + body + "}")).isInstanceOf(InvalidSchemaException.class)
                    .hasMessageStartingWith("the tool's JSON Schema is not valid JSON Schema 2020-12: at /properties/at/items:");
        }

        @Test
        void draft07DependenciesAndDefinitions() throws Exception {
            ArgumentSchema schema = compile("""
                    {'$schema':'http://json-schema.org/draft-07/schema#','type':'object',
                     'properties':{'card':{'$ref':'#/definitions/card'},'billing':{'type':'string'}},
                     'dependencies':{'card':['billing']},
                     'definitions':{'card':{'type':'string','pattern':'^[0-9]{4}$'}}}""");
            schema.check(null, Json.parse("{'card':'1234','billing':'x'}"));
            assertThat(problems(schema, "{'card':'12'}")).containsExactly(
                    new ArgumentProblem("card", "must match the regular expression ^[0-9]{4}$, got \"12\""),
                    new ArgumentProblem("billing", "required when \"card\" is given"));
        }

        @Test
        void defsAndRefsIn202012WithCoercionThroughTheRef() throws Exception {
            ArgumentSchema schema = compile("""
                    {'type':'object','properties':{'route':{'type':'array','items':{'$ref':'#/$defs/stop'},'minItems':1}},
                     'required':['route'],
                     '$defs':{'stop':{'type':'object','properties':{'city':{'type':'string'},
                       'nights':{'type':'integer','minimum':1}},'required':['city'],'additionalProperties':false}}}""");
            assertThat(schema.check(null, Json.parse("{'route':{'city':'Porto','nights':'2'}}")).toString())
                    .isEqualTo("{\"route\":[{\"city\":\"Porto\",\"nights\":2}]}");
            assertThat(problems(schema, "{'route':[{'city':'Porto','nigths':2},{'nights':0}]}")).containsExactly(
                    new ArgumentProblem("route[0].nigths", "unknown property; did you mean \"nights\"?"),
                    new ArgumentProblem("route[1].nights", "must be at least 1, got 0"),
                    new ArgumentProblem("route[1].city", "required but missing"));
        }
    }

    @Nested
    class BrokenSchemas {

        @ParameterizedTest
        @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
                "{'type':'strin'}                 | ~not valid JSON Schema 2020-12: at /type: expected one of \"array\", \"boolean\"~",
                "{'minimum':'a'}                  | ~not valid JSON Schema 2020-12: at /minimum: expected number, got \"a\"~",
                "{'required':'a'}                 | ~not valid JSON Schema 2020-12: at /required: expected array, got \"a\"~",
                "{'$ref':'#/$defs/none'}          | ~refers to #/$defs/none, which it does not define~",
                "{'$ref':'#'}                     | ~refers to itself without end ($ref cycle: #)~",
                "{'allOf':[{'$ref':'#/$defs/a'}],'$defs':{'a':{'not':{'$ref':'#'}}}} | ~($ref cycle: #/$defs/a -> #)~",
                "{'properties':{'a':{'pattern':'[z-a]'}}} | ~pattern that is not a regular expression at /properties/a/pattern~",
        })
        void areReportedWhenCompiled(String schema, String message) {
            assertThatThrownBy(() -> compile(schema)).isInstanceOf(InvalidSchemaException.class)
                    .hasMessageStartingWith("the tool's JSON Schema ").hasMessageContaining(message)
                    .hasMessageNotContaining("networknt").hasMessageNotContaining("jackson")
                    .hasMessageNotContaining("Exception");
        }

        @Test
        void aLoopHiddenBehindANestedIdFailsTheCallCleanlyInsteadOfItsThread() {
            ArgumentSchema schema = compile("{'$defs':{'a':{'$id':'urn:x:a','allOf':[{'$ref':'urn:x:a'}]}},"
                    + "'$ref':'urn:x:a'}");
            assertThatThrownBy(() -> schema.check(null, Json.parse("{}"))).isInstanceOf(InvalidSchemaException.class)
                    .hasMessageContaining("refers to itself without end");
        }

        @Test
        void aRecursiveSchemaIsNotALoop() throws Exception {
            ArgumentSchema schema = compile("{'$ref':'#/$defs/node','$defs':{'node':{'type':'object',"
                    + "'properties':{'children':{'type':'array','items':{'$ref':'#/$defs/node'}}}}}}");
            schema.check(null, Json.parse("{'children':[{'children':[]}]}"));
        }
    }

    @Nested
    class CompiledOnce {

        @Test
        void theStaticValidatorKeepsWhatItCompiledByContent() {
            ObjectNode schema = Json.object("{'type':'object','properties':{'a':{'type':'integer'}}}");
            ArgumentSchema first = ArgumentValidator.compiled(schema);
            assertThat(ArgumentValidator.compiled(schema.deepCopy())).isSameAs(first);
            schema.put("additionalProperties", false); // a changed schema is a different schema
            assertThat(ArgumentValidator.compiled(schema)).isNotSameAs(first);
        }

        @Test
        void compilingNeverChangesTheSchemaGiven() {
            ObjectNode schema = Json.object("{'type':'object','properties':{'a':{'type':'string','nullable':true},"
                    + "'b':{'type':'number','minimum':0,'exclusiveMinimum':true}},'$schema':'http://example.com/x'}");
            ObjectNode before = schema.deepCopy();
            compile(schema.toString());
            ArgumentSchema.compile(schema);
            assertThat(schema).isEqualTo(before);
        }

        @Test
        void oneCompiledSchemaServesManyThreadsAlike() throws Exception {
            ArgumentSchema schema = compile("{'type':'object','properties':{'n':{'type':'integer','maximum':100},"
                    + "'tags':{'type':'array','items':{'type':'string'}}},'required':['n']}");
            List<String> inputs = List.of("{'n':'5','tags':'a'}", "{'n':500}", "{'tags':[{}]}", "{'n':7.0}");
            List<String> expected = new ArrayList<>();
            for (String input : inputs) {
                expected.add(outcome(schema, input));
            }
            try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
                List<Future<String>> results = new ArrayList<>();
                for (int i = 0; i < 400; i++) {
                    String input = inputs.get(i % inputs.size());
                    results.add(pool.submit(() -> outcome(schema, input)));
                }
                for (int i = 0; i < results.size(); i++) {
                    assertThat(results.get(i).get()).isEqualTo(expected.get(i % inputs.size()));
                }
            }
            assertThat(expected).containsExactly("{\"n\":5,\"tags\":[\"a\"]}",
                    "invalid arguments: \"n\": must be at most 100, got 500. Expected arguments: {\"n\": integer,"
                            + " \"tags\"?: string[]}",
                    "invalid arguments: \"tags[0]\": expected string, got an object; \"n\": required but"
                            + " missing. Expected arguments: {\"n\": integer, \"tags\"?: string[]}",
                    "{\"n\":7}");
        }

        private static String outcome(ArgumentSchema schema, String input) {
            try {
                return schema.check(null, Json.parse(input)).toString();
            } catch (InvalidArgumentsException e) {
                return e.getMessage();
            }
        }
    }

    @Test
    void openApiNullableAndDraft4ExclusiveBounds() throws Exception {
        ArgumentSchema schema = compile("{'type':'object','properties':{'a':{'type':'string','enum':['x','y'],"
                + "'nullable':true},'b':{'type':'number','maximum':1,'exclusiveMaximum':true}},'required':['a']}");
        assertThat(schema.check(null, Json.parse("{'a':null,'b':0.5}")).toString()).isEqualTo("{\"a\":null,\"b\":0.5}");
        assertThat(problems(schema, "{'a':'z','b':1}")).containsExactly(
                new ArgumentProblem("a", "expected one of \"x\", \"y\", null, got \"z\""),
                new ArgumentProblem("b", "must be less than 1, got 1"));
    }

    @Test
    void messagesNeverSpeakTheValidatorsLanguage() {
        ArgumentSchema schema = compile("""
                {'type':'object','properties':{'a':{'type':'integer'},'b':{'enum':[1,2]},'c':{'type':'string','minLength':3},
                 'd':{'type':'array','uniqueItems':true,'maxItems':1},'e':{'not':{}},'f':{'propertyNames':{'maxLength':1}},
                 'g':{'type':'object','minProperties':2}},
                 'additionalProperties':false,'required':['z']}""");
        InvalidArgumentsException e = catchThrowableOfType(InvalidArgumentsException.class, () -> schema.check("t",
                Json.parse("{'a':'x','b':3,'c':'ab','d':[1,1],'e':1,'f':{'long':1},'g':{},'h':1}")));
        assertThat(e).isNotNull();
        assertThat(e.problems()).extracting(ArgumentProblem::path)
                .containsExactly("a", "b", "c", "d", "d[1]", "e", "f.long", "g", "h", "z");
        assertThat(e.getMessage()).doesNotContain("found,", "networknt", "jackson", "schema for", "is not defined in",
                "enumeration", "/properties");
    }

    static ArgumentSchema compile(String schema) {
        return ArgumentSchema.compile(Json.object(schema));
    }

    static List<ArgumentProblem> problems(ArgumentSchema schema, String arguments) {
        InvalidArgumentsException e = catchThrowableOfType(InvalidArgumentsException.class,
                () -> schema.check(null, Json.parse(arguments)));
        assertThat(e).as("arguments %s should be invalid", arguments).isNotNull();
        return e.problems();
    }

}
