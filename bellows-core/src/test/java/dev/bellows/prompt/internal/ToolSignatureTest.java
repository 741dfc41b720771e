package dev.bellows.prompt.internal;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each schema construct, as the tool catalog shows it. */
class ToolSignatureTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    private static String render(String description, String schema) throws Exception {
        return ToolSignature.render("f", description, JSON.readTree(schema));
    }

    private static String params(String properties, String required) throws Exception {
        return render("", "{\"type\": \"object\", \"properties\": " + properties + ", \"required\": " + required + "}");
    }

    @Test
    void requiredAndOptionalParametersOnOneLineWhenNothingIsCommented() throws Exception {
        assertThat(render("Adds two integers", """
                {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "number"},
                 "c": {"type": "boolean"}, "d": {"type": "string"}, "e": {"type": "null"}},
                 "required": ["a", "b"], "additionalProperties": false}"""))
                .isEqualTo("// Adds two integers\nf(a: integer, b: number, c?: boolean, d?: string, e?: null)");
    }

    @Test
    void theDescriptionIsCommentLinesBeforeTheSignatureAndBlankOnesAreLeftOut() throws Exception {
        assertThat(render("Reads a file.\n\nFails for binary files.  ", "{\"type\": \"object\"}"))
                .isEqualTo("// Reads a file.\n//\n// Fails for binary files.\nf()");
        assertThat(render("  ", "{\"type\": \"object\", \"properties\": {}}")).isEqualTo("f()");
        assertThat(render(null, "{}")).isEqualTo("f()");
    }

    @Test
    void aDescribedParameterPutsEveryParameterOnItsOwnLineWithATrailingComment() throws Exception {
        assertThat(params("""
                {"city": {"type": "string", "description": "City name,\\n  in English"},
                 "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}}""", "[\"city\"]"))
                .isEqualTo("""
                        f(
                          city: string, // City name, in English
                          unit?: "celsius" | "fahrenheit", // default: "celsius"
                        )""");
    }

    @Test
    void enumsAndConstsAreLiteralsOfAnyJsonType() throws Exception {
        assertThat(params("{\"x\": {\"enum\": [\"a\", 1, 2.5, true, null]}, \"y\": {\"const\": \"fixed\"}}", "[\"x\", \"y\"]"))
                .isEqualTo("f(x: \"a\" | 1 | 2.5 | true | null, y: \"fixed\")");
    }

    @Test
    void arraysNestedObjectsAndUnionItemsInParentheses() throws Exception {
        assertThat(params("""
                {"tags": {"type": "array", "items": {"type": "string"}},
                 "steps": {"type": "array", "items": {"type": "object", "properties": {
                   "description": {"type": "string"},
                   "status": {"type": "string", "enum": ["pending", "done"]}}, "required": ["description"]}},
                 "ids": {"type": "array", "items": {"type": ["integer", "string"]}},
                 "any": {"type": "array"},
                 "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}}""", "[]"))
                .isEqualTo("f(tags?: string[], steps?: {description: string, status?: \"pending\" | \"done\"}[],"
                        + " ids?: (integer | string)[], any?: any[], grid?: number[][])");
    }

    @Test
    void describedNestedPropertiesOpenABlockIndentedUnderTheirParent() throws Exception {
        assertThat(params("""
                {"steps": {"type": "array", "description": "The whole plan",
                  "items": {"type": "object", "properties": {
                   "description": {"type": "string", "description": "What to do"},
                   "meta": {"type": "object", "properties": {"owner": {"type": "string", "description": "Who"}}}},
                   "required": ["description"]}}}""", "[\"steps\"]"))
                .isEqualTo("""
                        f(
                          steps: {
                            description: string, // What to do
                            meta?: {
                              owner?: string, // Who
                            },
                          }[], // The whole plan
                        )""");
    }

    @Test
    void formatsDefaultsConstraintsAndExamplesAreCommented() throws Exception {
        assertThat(params("""
                {"when": {"type": "string", "format": "date-time", "description": "Start"},
                 "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
                 "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "examples": ["EUR"]},
                 "urls": {"type": "array", "items": {"type": "string", "format": "uri"}, "maxItems": 5,
                  "uniqueItems": true}}""", "[\"when\"]"))
                .isEqualTo("""
                        f(
                          when: string, // Start; format: date-time
                          count?: integer, // default: 3; minimum: 1; maximum: 10
                          code?: string, // examples: ["EUR"]; minLength: 3; pattern: ^[A-Z]{3}$
                          urls?: (string /* format: uri */)[], // maxItems: 5; uniqueItems: true
                        )""");
    }

    @Test
    void unionsNullablesAndMaps() throws Exception {
        assertThat(params("""
                {"id": {"anyOf": [{"type": "integer"}, {"type": "string", "description": "a name"}]},
                 "note": {"type": ["string", "null"]},
                 "old": {"type": "string", "nullable": true},
                 "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                 "bag": {"type": "object"},
                 "closed": {"type": "object", "additionalProperties": false},
                 "one": {"oneOf": [{"const": "a"}, {"type": "object", "properties": {"k": {"type": "integer"}},
                  "required": ["k"]}]}}""", "[\"id\"]"))
                .isEqualTo("f(id: integer | string /* a name */, note?: string | null, old?: string | null,"
                        + " labels?: {[key: string]: string}, bag?: object, closed?: {}, one?: \"a\" | {k: integer})");
    }

    @Test
    void odddNamesAreQuotedAndRequiredNamesWithoutAPropertyAreShown() throws Exception {
        assertThat(render("", """
                {"type": "object", "properties": {"file-path": {"type": "string"}}, "required": ["file-path", "x"],
                 "additionalProperties": {"type": "integer"}}"""))
                .isEqualTo("f(\"file-path\": string, x: any, [key: string]: integer)");
        assertThat(render("", "{\"properties\": {\"a\": {}, \"b\": true}}")).isEqualTo("f(a?: any, b?: any)");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#/$defs/A\"}}, \"$defs\": {\"A\": {\"type\": \"string\"}}}",
            "{\"type\": \"object\", \"properties\": {\"a\": {\"allOf\": [{\"type\": \"string\"}]}}}",
            "{\"type\": \"object\", \"properties\": {\"a\": {\"not\": {\"type\": \"string\"}}}}",
            "{\"type\": \"object\", \"patternProperties\": {\"^x\": {\"type\": \"string\"}}}",
            "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"array\", \"items\": [{\"type\": \"string\"}]}}}",
            "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\", \"anyOf\": [{\"minLength\": 1}]}}}",
            "{\"type\": \"object\", \"properties\": {\"a\": false}}",
            "{\"type\": \"object\", \"if\": {\"required\": [\"a\"]}, \"then\": {\"required\": [\"b\"]}}",
            "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}",
            "{\"anyOf\": [{\"type\": \"object\"}, {\"type\": \"string\"}]}",
            "{\"type\": [\"object\", \"null\"]}",
    })
    void whatTypeScriptCannotSayFaithfullyIsShownAsTheWholeJsonSchema(String schema) throws Exception {
        JsonNode node = JSON.readTree(schema);

        assertThat(ToolSignature.render("f", "Does it.", node))
                .isEqualTo("// Does it.\nf(/* JSON Schema */ " + JSON.writeValueAsString(node) + ")");
    }

    @Test
    void aRootDescriptionIsAnotherCommentLineAndTitlesAreLeftOut() throws Exception {
        assertThat(render("Tool.", """
                {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Args",
                 "description": "The arguments.", "type": "object",
                 "properties": {"a": {"type": "string", "title": "A"}}}"""))
                .isEqualTo("// Tool.\n// The arguments.\nf(a?: string)");
    }

    @Test
    void aCommentCannotEndEarly() throws Exception {
        assertThat(params("{\"a\": {\"type\": \"array\", \"items\": {\"type\": \"string\", \"description\": \"x */ y\"}}}", "[]"))
                .isEqualTo("f(a?: (string /* x * / y */)[])");
    }
}
