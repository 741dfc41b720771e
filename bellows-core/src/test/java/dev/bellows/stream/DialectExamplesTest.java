package dev.bellows.stream;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import static dev.bellows.stream.DialectTesting.calls;
import static dev.bellows.stream.DialectTesting.namesByChar;
import static dev.bellows.stream.DialectTesting.options;
import static dev.bellows.stream.DialectTesting.runAnyChunking;
import static dev.bellows.stream.DialectTesting.thinking;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.Complete;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Every dialect on examples ported from the tool-parser tests of vLLM
 * ({@code tests/tool_use/} and {@code tests/tool_parsers/}, named per test), SGLang
 * ({@code test/srt/test_function_call_parser.py}) and llama.cpp ({@code tests/test-chat.cpp}),
 * and on the formats of the models' chat templates. Each example runs in one chunk and cut
 * 1, 2, 3 and 7 code points a chunk ({@link DialectTesting#runAnyChunking}); the early name is
 * checked one character a chunk: {@code name@i} means the event came with character {@code i}.
 */
class DialectExamplesTest {

    private static Complete run(String dialect, String text) {
        return (Complete) runAnyChunking(options(dialect), text).getLast();
    }

    private static Complete run(StreamOptions options, String text) {
        return (Complete) runAnyChunking(options, text).getLast();
    }

    private static void expect(String dialect, String text, String message, List<String> thinking, String... calls) {
        expect(options(dialect), text, message, thinking, calls);
    }

    private static void expect(StreamOptions options, String text, String message, List<String> thinking,
            String... calls) {
        Complete complete = run(options, text);
        assertThat(complete.message()).as("message").isEqualTo(message);
        assertThat(thinking(complete)).as("thinking").isEqualTo(thinking);
        assertThat(calls(complete)).as("tool calls").containsExactly(calls);
    }

    private static String errorOf(String dialect, String text) {
        List<String> calls = calls(run(dialect, text));
        assertThat(calls).hasSize(1);
        assertThat(calls.getFirst()).startsWith("error: ");
        return calls.getFirst();
    }

    private static ToolSchemas schemas(String json) {
        try {
            return ToolSchemas.fromJson(Jackson.JSON.readTree(json));
        } catch (JacksonException e) {
            throw new AssertionError(e);
        }
    }

    @Nested
    class Hermes {

        // vLLM tests/tool_use/test_hermes_tool_parser.py and Qwen2.5/Qwen3's chat template
        @Test
        void oneCallBetweenToolCallTags() {
            expect("hermes", "<tool_call>\n{\"name\": \"get_current_weather\", \"arguments\": {\"city\": \"Dallas\","
                    + " \"state\": \"TX\", \"unit\": \"fahrenheit\"}}\n</tool_call>", "", List.of(),
                    "get_current_weather {\"city\":\"Dallas\",\"state\":\"TX\",\"unit\":\"fahrenheit\"}");
        }

        @Test
        void textBeforeAndAfterIsMessageAndTwoCalls() {
            expect("hermes", "Let me check both.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n"
                    + "<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>\nDone.",
                    "Let me check both.\nDone.", List.of(), "a {}", "b {\"x\":1}");
        }

        @Test
        void thinkBlockThenCall() {
            expect("hermes", "<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{\"name\": \"w\","
                    + " \"arguments\": {\"c\": \"Paris\"}}\n</tool_call>", "", List.of("The user wants the weather."),
                    "w {\"c\":\"Paris\"}");
        }

        @Test
        void otherTagsAreText() {
            expect("hermes", "<tool>x</tool> <thinking>y</thinking> <Tool_Call>z", "<tool>x</tool> <thinking>y</thinking>"
                    + " <Tool_Call>z", List.of());
        }

        @Test
        void earlyNameAtTheClosingQuote() {
            String text = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>";
            assertThat(namesByChar(options("hermes"), text)).containsExactly("get_weather@" + text.indexOf("\", \"a"));
        }

        @Test
        void qwen3ProfileOptionsThinkingOpenAndToolEndsThinking() {
            StreamOptions qwen3 = StreamOptions.builder().dialect(Dialect.named("hermes")).thinkingOpen(true)
                    .toolEndsThinking(true).build();
            expect(qwen3, "<think>\nI need the weather.\n<tool_call>\n{\"name\": \"w\", \"arguments\": {}}\n</tool_call>",
                    "", List.of("I need the weather."), "w {}");
            expect(qwen3, "plan</think>\n\nThe answer.", "The answer.", List.of("plan"));
        }

        @Test
        void unclosedCallAtTheEndOfTheStreamIsDecoded() {
            expect("hermes", "<tool_call>\n{\"name\": \"w\", \"arguments\": {}}\n", "", List.of(), "w {}");
        }
    }

    @Nested
    class Qwen3Coder {

        private static final String WEATHER = "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n"
                + "</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
                + "</function>\n</tool_call>";

        // vLLM tests/tool_use/test_qwen3coder_tool_parser.py, "single_tool"
        @Test
        void parametersAreStringsWithoutASchema() {
            expect("qwen3_coder", WEATHER, "", List.of(),
                    "get_current_weather {\"city\":\"Dallas\",\"state\":\"TX\",\"unit\":\"fahrenheit\"}");
        }

        // vLLM test_qwen3coder_tool_parser.py, "typed parameters" (schema-driven conversion)
        @Test
        void parametersAreTypedByTheSchema() {
            StreamOptions options = StreamOptions.builder().dialect(Dialect.named("qwen3_coder")).toolSchemas(schemas(
                    "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\","
                            + " \"properties\": {\"n\": {\"type\": \"integer\"}, \"x\": {\"type\": \"number\"},"
                            + " \"b\": {\"type\": \"boolean\"}, \"o\": {\"type\": \"object\"}, \"s\": {\"type\": \"string\"},"
                            + " \"a\": {\"type\": \"array\"}}}}}]")).build();
            expect(options, "<tool_call>\n<function=f>\n<parameter=n>\n42\n</parameter>\n<parameter=x>\n2.5\n</parameter>\n"
                    + "<parameter=b>\nTrue\n</parameter>\n<parameter=o>\n{\"k\": [1]}\n</parameter>\n<parameter=s>\n007\n"
                    + "</parameter>\n<parameter=a>\n[1, 2]\n</parameter>\n<parameter=other>\n5\n</parameter>\n</function>\n"
                    + "</tool_call>", "", List.of(),
                    "f {\"n\":42,\"x\":2.5,\"b\":true,\"o\":{\"k\":[1]},\"s\":\"007\",\"a\":[1,2],\"other\":\"5\"}");
        }

        @Test
        void multilineValuesKeepTheirInnerLineBreaks() {
            expect("qwen3_coder", "I'll write it.\n<tool_call>\n<function=write_file>\n<parameter=content>\nline 1\n\n"
                    + "line <b>2</b>\n</parameter>\n</function>\n</tool_call>", "I'll write it.", List.of(),
                    "write_file {\"content\":\"line 1\\n\\nline <b>2</b>\"}");
        }

        // vLLM test_qwen3coder_tool_parser.py, test_extract_tool_calls_fallback_no_tags
        @Test
        void aFunctionWithoutToolCallTagsIsACallToo() {
            expect("qwen3_coder", "Checking.\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
                    + "<parameter=state>\nTX\n</parameter>\n</function> Done.", "Checking.\nDone.", List.of(),
                    "get_current_weather {\"city\":\"Dallas\",\"state\":\"TX\"}");
            String bare = "<function=f>\n</function>";
            assertThat(namesByChar(options("qwen3_coder"), bare)).containsExactly("f@" + bare.indexOf('>'));
        }

        // vLLM test_qwen3coder_tool_parser.py, test_extract_tool_calls_type_conversion ("float" as a type name)
        @Test
        void typeConversionWithLooseTypeNames() {
            StreamOptions options = StreamOptions.builder().dialect(Dialect.named("qwen3_coder")).toolSchemas(schemas(
                    "[{\"name\": \"test_types\", \"parameters\": {\"type\": \"object\", \"properties\": {"
                            + "\"int_param\": {\"type\": \"integer\"}, \"float_param\": {\"type\": \"float\"},"
                            + " \"bool_param\": {\"type\": \"boolean\"}, \"str_param\": {\"type\": \"string\"},"
                            + " \"obj_param\": {\"type\": \"object\"}}}}]")).build();
            expect(options, "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n"
                    + "<parameter=float_param>\n3.14\n</parameter>\n<parameter=bool_param>\ntrue\n</parameter>\n"
                    + "<parameter=str_param>\nhello world\n</parameter>\n<parameter=obj_param>\n{\"key\": \"value\"}\n"
                    + "</parameter>\n</function>\n</tool_call>", "", List.of(),
                    "test_types {\"int_param\":42,\"float_param\":3.14,\"bool_param\":true,\"str_param\":\"hello world\","
                            + "\"obj_param\":{\"key\":\"value\"}}");
        }

        @Test
        void missingCloseTagsAreTolerated() {
            expect("qwen3_coder", "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</tool_call>", "",
                    List.of(), "f {\"a\":\"1\",\"b\":\"2\"}");
        }

        @Test
        void earlyNameAtTheGreaterThan() {
            assertThat(namesByChar(options("qwen3_coder"), WEATHER))
                    .containsExactly("get_current_weather@" + WEATHER.indexOf(">\n<parameter=city"));
        }

        @Test
        void aBodyThatIsNotAFunctionIsAnErrorTheModelCanFix() {
            assertThat(errorOf("qwen3_coder", "<tool_call>\nget_weather(city=Paris)\n</tool_call>"))
                    .contains("must start with <function=NAME>");
        }
    }

    @Nested
    class Glm45 {

        // vLLM tests/tool_use/test_glm4_moe_tool_parser.py, "single_tool_call"
        private static final String WEATHER = "<tool_call>get_current_weather\n<arg_key>city</arg_key>\n"
                + "<arg_value>Dallas</arg_value>\n<arg_key>state</arg_key>\n<arg_value>TX</arg_value>\n"
                + "<arg_key>unit</arg_key>\n<arg_value>fahrenheit</arg_value>\n</tool_call>";

        @Test
        void nameThenKeyValuePairs() {
            expect("glm45", WEATHER, "", List.of(),
                    "get_current_weather {\"city\":\"Dallas\",\"state\":\"TX\",\"unit\":\"fahrenheit\"}");
        }

        @Test
        void thinkingThenTwoCallsAndText() {
            expect("glm45", "<think>Two cities.</think>I will check.<tool_call>w\n<arg_key>c</arg_key>"
                    + "<arg_value>Paris</arg_value>\n</tool_call><tool_call>w\n<arg_key>c</arg_key>"
                    + "<arg_value>Rome</arg_value>\n</tool_call>", "I will check.", List.of("Two cities."),
                    "w {\"c\":\"Paris\"}", "w {\"c\":\"Rome\"}");
        }

        // llama.cpp tests/test-chat.cpp, GLM-4.6 template, with special_function's schema (arg1: integer);
        // and its GLM parser test with thinking and a leading line break
        @Test
        void llamaCppGlm46CallTypedByTheSchemaAndThinking() {
            StreamOptions options = StreamOptions.builder().dialect(Dialect.named("glm45")).toolSchemas(schemas(
                    "[{\"name\": \"special_function\", \"parameters\": {\"type\": \"object\", \"properties\":"
                            + " {\"arg1\": {\"type\": \"integer\"}}, \"required\": [\"arg1\"]}}]")).build();
            expect(options, "\n<think>I'm\nthinking</think>\n<tool_call>special_function\n<arg_key>arg1</arg_key>\n"
                    + "<arg_value>1</arg_value>\n</tool_call>", "", List.of("I'm\nthinking"), "special_function {\"arg1\":1}");
            expect("glm45", "\n<think>I'm\nthinking</think>\nHello, world!\nWhat's up?", "Hello, world!\nWhat's up?",
                    List.of("I'm\nthinking"));
            // GLM-4.7-Flash writes the first key right after the name
            expect("glm45", "<tool_call>file-read<arg_key>fileName</arg_key><arg_value>main.py</arg_value></tool_call>",
                    "", List.of(), "file-read {\"fileName\":\"main.py\"}");
        }

        @Test
        void aCallWithoutArguments() {
            expect("glm45", "<tool_call>list_files\n</tool_call>", "", List.of(), "list_files {}");
        }

        @Test
        void valuesAreTypedByTheSchema() {
            StreamOptions options = StreamOptions.builder().dialect(Dialect.named("glm45")).toolSchemas(schemas(
                    "[{\"name\": \"f\", \"parameters\": {\"properties\": {\"n\": {\"type\": \"integer\"}}}}]")).build();
            expect(options, "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>3</arg_value>\n</tool_call>", "", List.of(),
                    "f {\"n\":3}");
        }

        @Test
        void earlyNameAtTheLineBreak() {
            assertThat(namesByChar(options("glm45"), WEATHER))
                    .containsExactly("get_current_weather@" + WEATHER.indexOf("\n<arg_key>city"));
        }

        @Test
        void aKeyWithoutValueIsAnError() {
            assertThat(errorOf("glm45", "<tool_call>f\n<arg_key>a</arg_key>\n</tool_call>"))
                    .contains("must be followed by <arg_value>");
        }
    }

    @Nested
    class MinimaxM2 {

        // vLLM tests/tool_use/test_minimax_m2_tool_parser.py, test_streaming_minimax_m2_multiple_invokes
        private static final String TWO = "<minimax:tool_call><invoke name=\"search_web\"><parameter name=\"query_tag\">"
                + "[\"technology\", \"events\"]</parameter><parameter name=\"query_list\">[\"OpenAI\", \"latest\","
                + " \"release\"]</parameter></invoke><invoke name=\"search_web\"><parameter name=\"query_tag\">"
                + "[\"technology\", \"events\"]</parameter><parameter name=\"query_list\">[\"Gemini\", \"latest\","
                + " \"release\"]</parameter></invoke></minimax:tool_call>";

        @Test
        void severalInvokesInOneSectionAreSeveralCalls() {
            StreamOptions options = StreamOptions.builder().dialect(Dialect.named("minimax_m2")).toolSchemas(schemas(
                    "[{\"name\": \"search_web\", \"parameters\": {\"properties\": {\"query_tag\": {\"type\": \"array\"},"
                            + " \"query_list\": {\"type\": \"array\"}}}}]")).build();
            expect(options, TWO, "", List.of(),
                    "search_web {\"query_tag\":[\"technology\",\"events\"],\"query_list\":[\"OpenAI\",\"latest\",\"release\"]}",
                    "search_web {\"query_tag\":[\"technology\",\"events\"],\"query_list\":[\"Gemini\",\"latest\",\"release\"]}");
        }

        // test_streaming_with_extra_attributes_in_tags and test_streaming_with_parentheses_in_value
        @Test
        void extraAttributesAreIgnoredAndValuesAreStringsWithoutASchema() {
            expect("minimax_m2", "<think>ls</think>Running it.\n<minimax:tool_call>\n<invoke name=\"execute_command\""
                    + " description=\"Run a command\">\n<parameter name=\"command\" type=\"string\">ls -la</parameter>\n"
                    + "<parameter name=\"topic\">commands (e.g. ls -la, cat file.txt)</parameter>\n</invoke>\n"
                    + "</minimax:tool_call>", "Running it.", List.of("ls"),
                    "execute_command {\"command\":\"ls -la\",\"topic\":\"commands (e.g. ls -la, cat file.txt)\"}");
        }

        @Test
        void earlyNameAtTheClosingQuote() {
            assertThat(namesByChar(options("minimax_m2"), TWO)).containsExactly(
                    "search_web@" + TWO.indexOf("\"><parameter"),
                    "search_web@" + TWO.indexOf("\"><parameter", TWO.indexOf("</invoke>")));
        }

        @Test
        void anUnclosedParameterIsAnError() {
            assertThat(errorOf("minimax_m2", "<minimax:tool_call><invoke name=\"f\"><parameter name=\"a\">1</invoke>"
                    + "</minimax:tool_call>")).contains("never closed with </parameter>");
        }
    }

    @Nested
    class KimiK2 {

        // vLLM tests/tool_use/test_kimi_k2_tool_parser.py, "multi_tool_call_with_content_before"
        private static final String TWO = "I'll help you check the weather. <|tool_calls_section_begin|>"
                + " <|tool_call_begin|>\nfunctions.get_weather:0 <|tool_call_argument_begin|> {\"city\": \"Beijing\"}"
                + " <|tool_call_end|> <|tool_call_begin|>\nfunctions.get_weather:1 <|tool_call_argument_begin|>"
                + " {\"city\": \"Shanghai\"} <|tool_call_end|> <|tool_calls_section_end|>";

        @Test
        void contentBeforeAndTwoCalls() {
            expect("kimi_k2", TWO, "I'll help you check the weather.", List.of(),
                    "get_weather {\"city\":\"Beijing\"}", "get_weather {\"city\":\"Shanghai\"}");
        }

        // "angle_brackets_in_json", "newlines_in_json", "mixed_spacing_tool_calls"
        @Test
        void angleBracketsNewlinesAndMixedSpacing() {
            expect("kimi_k2", "I need to process HTML content. <|tool_calls_section_begin|><|tool_call_begin|>"
                    + "functions.process_html:0<|tool_call_argument_begin|>{\"html\": \"<div>content</div>\", \"text\":"
                    + " \"normal text\"}<|tool_call_end|><|tool_call_begin|> functions.test:1 <|tool_call_argument_begin|>"
                    + " {\n  \"n\": 123\n} <|tool_call_end|><|tool_calls_section_end|>",
                    "I need to process HTML content.", List.of(),
                    "process_html {\"html\":\"<div>content</div>\",\"text\":\"normal text\"}", "test {\"n\":123}");
        }

        // test_extract_tool_calls_invalid_funcall: an id without ":INDEX" is not a call
        @Test
        void anIdWithoutIndexIsAnError() {
            Complete complete = run("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>\n"
                    + "functions.invalid_get_weather.0 <|tool_call_argument_begin|> {\"city\": \"Beijing\"}"
                    + " <|tool_call_end|><|tool_call_begin|>\nfunctions.valid_get_weather:1 <|tool_call_argument_begin|>"
                    + " {\"city\": \"Shanghai\"} <|tool_call_end|> <|tool_calls_section_end|>");
            assertThat(calls(complete).getFirst()).contains("is not functions.NAME:INDEX");
            assertThat(calls(complete).get(1)).isEqualTo("valid_get_weather {\"city\":\"Shanghai\"}");
        }

        @Test
        void thinkingAndTextAfterTheSection() {
            expect("kimi_k2", "<think>Need weather.</think><|tool_calls_section_begin|><|tool_call_begin|>"
                    + "functions.w:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|> Calling.",
                    "Calling.", List.of("Need weather."), "w {}");
        }

        // llama.cpp tests/test-chat.cpp, Kimi-K2-Thinking template: special_function with arg1 = 1
        @Test
        void llamaCppKimiK2ThinkingCallAndBothThinkingDelimiters() {
            expect("kimi_k2", "<think>I'm\nthinking</think><|tool_calls_section_begin|><|tool_call_begin|>"
                    + "functions.special_function:0<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_end|>"
                    + "<|tool_calls_section_end|>", "", List.of("I'm\nthinking"), "special_function {\"arg1\":1}");
            expect("kimi_k2", "◁think▷x◁/think▷Hello", "Hello", List.of("x"));
        }

        @Test
        void theSingularSectionSpellingToo() {
            expect("kimi_k2", "<|tool_call_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}"
                    + "<|tool_call_end|><|tool_call_section_end|>ok", "ok", List.of(), "f {}");
        }

        @Test
        void earlyNameAtTheColon() {
            assertThat(namesByChar(options("kimi_k2"), TWO)).containsExactly(
                    "get_weather@" + TWO.indexOf(":0"), "get_weather@" + TWO.indexOf(":1"));
        }
    }

    @Nested
    class DeepSeekV3 {

        // vLLM tests/tool_parsers/test_deepseekv3_tool_parser.py and DeepSeek-V3's chat template
        private static final String V3 = "Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
                + "get_weather\n```json\n{\"location\": \"Tokyo\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function"
                + "<｜tool▁sep｜>get_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";

        @Test
        void fencedJsonCalls() {
            expect("deepseek_v3", V3, "Let me look.", List.of(), "get_weather {\"location\":\"Tokyo\"}", "get_time {}");
        }

        // vLLM tests/tool_use/test_deepseekv31_tool_parser.py: NAME<｜tool▁sep｜>{json}
        @Test
        void v31Form() {
            expect("deepseek_v3", "<think>r</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>"
                    + "{\"x\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "", List.of("r"), "foo {\"x\":1}");
        }

        @Test
        void r1ThinkingOpen() {
            StreamOptions r1 = StreamOptions.builder().dialect(Dialect.named("deepseek_v3")).thinkingOpen(true).build();
            expect(r1, "I should answer.</think>\n\n4", "4", List.of("I should answer."));
        }

        @Test
        void earlyNameAtTheEndOfTheNameLine() {
            assertThat(namesByChar(options("deepseek_v3"), V3)).containsExactly(
                    "get_weather@" + V3.indexOf("\n```json"), "get_time@" + V3.indexOf("\n```json\n{}"));
        }

        @Test
        void aCallWithoutSeparatorIsAnError() {
            assertThat(errorOf("deepseek_v3", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather {}"
                    + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>")).contains("<｜tool▁sep｜>");
        }
    }

    @Nested
    class Mistral {

        // vLLM tests/tool_use/test_mistral_tool_parser.py, test_extract_tool_calls ("single_tool_add",
        // "argument_before_name_and_name_in_argument") and the streaming "multiple_tools"
        @Test
        void jsonListForm() {
            expect("mistral", "[TOOL_CALLS][{\"name\": \"add\", \"arguments\":{\"a\": 3.5, \"b\": 4}}]", "", List.of(),
                    "add {\"a\":3.5,\"b\":4}");
            expect("mistral", "[TOOL_CALLS] [{\"arguments\":{\"name\": \"John Doe\"}, \"name\": \"get_age\"}]", "",
                    List.of(), "get_age {\"name\":\"John Doe\"}");
            expect("mistral", "[TOOL_CALLS]  [ {\"name\":\"add\" , \"arguments\" : {\"a\": 3, \"b\": 4} } ,"
                    + " {\"name\": \"w\", \"arguments\": {}}]", "", List.of(), "add {\"a\":3,\"b\":4}", "w {}");
        }

        // test_extract_tool_calls_v11_tokenizer: NAME{json}, and NAME[ARGS]{json} of later tokenizers
        @Test
        void nameArgsForm() {
            expect("mistral", "[TOOL_CALLS]get_current_weather{\"city\": \"San Francisco\", \"state\": \"CA\"}", "",
                    List.of(), "get_current_weather {\"city\":\"San Francisco\",\"state\":\"CA\"}");
            expect("mistral", "Sure.[TOOL_CALLS]add[ARGS]{\"a\": 1}[TOOL_CALLS]mul[CALL_ID]c1[ARGS]{\"b\": [2]} Done.",
                    "Sure. Done.", List.of(), "add {\"a\":1}", "mul {\"b\":[2]}");
        }

        // SGLang test/srt/test_function_call_parser.py, TestMistralDetector:
        // test_detect_and_parse_with_nested_brackets_in_content, test_detect_and_parse_with_text_before_tool_call
        @Test
        void sglangNestedBracketsInStringsAndTextBefore() {
            expect("mistral", "[TOOL_CALLS] [{\"name\":\"make_next_step_decision\", \"arguments\":{\"decision\":\"\","
                    + "\"content\":\"```\\nANSWER: [City Name] - [Weather Conditions] - [Temperature]\\n```\"}}]", "",
                    List.of(), "make_next_step_decision {\"decision\":\"\",\"content\":\"```\\nANSWER: [City Name] -"
                            + " [Weather Conditions] - [Temperature]\\n```\"}");
            expect("mistral", "Here is some text before the tool call: [TOOL_CALLS] [{\"name\":\"make_next_step_decision\","
                    + " \"arguments\":{\"decision\":\"ANSWER\", \"content\":\"The answer is 42\"}}]",
                    "Here is some text before the tool call:", List.of(),
                    "make_next_step_decision {\"decision\":\"ANSWER\",\"content\":\"The answer is 42\"}");
        }

        @Test
        void magistralThinking() {
            expect("mistral", "[THINK]Add them.[/THINK]The sum is 7.", "The sum is 7.", List.of("Add them."));
        }

        @Test
        void textThatOnlyLooksLikeTheDelimiterIsMessage() {
            expect("mistral", "See [TOOLS] and [1, 2].", "See [TOOLS] and [1, 2].", List.of());
        }

        @Test
        void earlyName() {
            String list = "[TOOL_CALLS][{\"name\": \"add\", \"arguments\": {}}]";
            assertThat(namesByChar(options("mistral"), list)).containsExactly("add@" + list.indexOf("\", \"arg"));
            String args = "[TOOL_CALLS]add[ARGS]{}";
            assertThat(namesByChar(options("mistral"), args)).containsExactly("add@" + args.indexOf("[ARGS]"));
        }

        // vLLM test_mistral_tool_parser.py, test_extract_tool_calls_v11_without_args_skipped: a name
        // without arguments is no call (vLLM drops it; here, nothing the model wrote is lost: text)
        @Test
        void aNameWithoutArgumentsIsText() {
            expect("mistral", "[TOOL_CALLS]toolname_no_args", "toolname_no_args", List.of());
        }
    }

    @Nested
    class Llama3Json {

        // vLLM tests/tool_parsers/test_llama3_json_tool_parser.py and Llama 3.1's JSON tool template
        @Test
        void bareJsonAnswer() {
            expect("llama3_json", "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test\"}}", "", List.of(),
                    "searchTool {\"query\":\"test\"}");
        }

        @Test
        void afterThePythonTagAndSeveralCallsSeparatedBySemicolons() {
            expect("llama3_json", "<|python_tag|>{\"name\": \"getOpenIncidentsTool\", \"parameters\": {}}; "
                    + "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"}; {\"}}", "", List.of(),
                    "getOpenIncidentsTool {}", "searchTool {\"query\":\"}; {\"}");
        }

        @Test
        void textThenPythonTag() {
            expect("llama3_json", "Calling it.<|python_tag|>{\"name\": \"f\", \"parameters\": {}}\nIt is done.",
                    "Calling it.\nIt is done.", List.of(), "f {}");
        }

        // vLLM tests/tool_parsers/test_llama3_json_tool_parser.py: test_extract_tool_calls_simple and
        // test_extract_tool_calls_multiple_json_with_surrounding_text (calls in the middle of text)
        @Test
        void callsInTheMiddleOfTextAndTheTextAroundThem() {
            expect("llama3_json", "Here is the result: {\"name\": \"getOpenIncidentsTool\", \"parameters\": {}}"
                    + " Would you like to know more?", "Here is the result: Would you like to know more?", List.of(),
                    "getOpenIncidentsTool {}");
            expect("llama3_json", "Here are the results: {\"name\": \"searchTool\", \"parameters\": {\"query\": \"test1\"}}; "
                    + "{\"name\": \"getOpenIncidentsTool\", \"parameters\": {}}; {\"name\": \"searchTool\", \"parameters\":"
                    + " {\"query\": \"test2\"}} Would you like to know more?",
                    "Here are the results: Would you like to know more?", List.of(),
                    "searchTool {\"query\":\"test1\"}", "getOpenIncidentsTool {}", "searchTool {\"query\":\"test2\"}");
        }

        // test_extract_tool_calls_streaming_parallel_separators ("; ", ";", ";\n", "\n")
        @Test
        void separatorsBetweenCalls() {
            for (String separator : List.of("; ", ";", ";\n", "\n", " ; ")) {
                expect("llama3_json", "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test1\"}}" + separator
                        + "{\"name\": \"getOpenIncidentsTool\", \"parameters\": {}}", "", List.of(),
                        "searchTool {\"query\":\"test1\"}", "getOpenIncidentsTool {}");
            }
        }

        // test_extract_tool_calls_brace_in_trailing_text, test_extract_tool_calls_json_fragment_in_trailing_text,
        // test_extract_tool_calls_with_quotes_and_brackets_in_string, ..._with_escaped_quotes_in_nested_json
        @Test
        void bracesInProseAndInStrings() {
            expect("llama3_json", "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test\"}} I used {searchTool}"
                    + " for this. The arguments I passed were {\"query\": \"test\"}", "I used {searchTool} for this. The"
                    + " arguments I passed were {\"query\": \"test\"}", List.of(), "searchTool {\"query\":\"test\"}");
            expect("llama3_json", "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test {value} [complex]\","
                    + "\"nested\": {\"inner\": \"more {brackets}\"}}}", "", List.of(),
                    "searchTool {\"query\":\"test {value} [complex]\",\"nested\":{\"inner\":\"more {brackets}\"}}");
            expect("llama3_json", "{\"name\": \"parserTool\", \"parameters\": {\"text\": \"He said \\\"Hello {world}\\\"\"}}",
                    "", List.of(), "parserTool {\"text\":\"He said \\\"Hello {world}\\\"\"}");
        }

        @Test
        void jsonWithoutANameKeyLaterInTheTextIsMessage() {
            expect("llama3_json", "The format is {\"query\": \"x\"} or { name }.", "The format is {\"query\": \"x\"} or { name }.",
                    List.of());
        }

        // a bare call that starts {"name": "A TOOL", "parameters" (or "arguments") is a call from there on, as
        // vLLM, SGLang and llama.cpp stream it: its name comes with the closing quote of that key
        @Test
        void theNameComesWithTheArgumentsKey() {
            String text = "Sure: { \"name\": \"f\", \"parameters\": {}}";
            assertThat(namesByChar(options("llama3_json"), text)).containsExactly("f@" + text.indexOf("\": {}"));
            String bare = "{\"name\": \"searchTool\", \"arguments\": {}}";
            assertThat(namesByChar(options("llama3_json"), bare)).containsExactly("searchTool@" + bare.indexOf("\": {}"));
        }

        // vLLM test_llama3_json_tool_parser.py: a block cut off is text, for vLLM; here a call that started as one
        // and was cut off by the end of the stream is a call never closed (stream contract 1.1), as a tag's is;
        // an object that did not start as a call stays text
        @Test
        void anUnfinishedObjectIsACallNeverClosed() {
            expect("llama3_json", "{\"name\": \"f\", \"parameters\": {", "", List.of(),
                    "error: the tool call was never closed: the answer ended before the end of its JSON object, and what"
                            + " was written is not a complete call: tool call JSON is invalid at line 1, column 30: the"
                            + " text ends too early: a closing '}' or ']' is missing; write one JSON object like {\"tool_name\":"
                            + " \"...\", \"arguments\": {...}}; write the whole call and close it with the end of its JSON object");
            expect("llama3_json", "{\"parameters\": {}, \"name\": \"f\"", "{\"parameters\": {}, \"name\": \"f\"", List.of());
        }

        // a call that breaks after its start is a malformed call, reported as a tag's is (tool_call_end with an
        // error the model can act on); what follows the break is message text
        @Test
        void anObjectThatBreaksAfterItsStartIsAMalformedCall() {
            expect("llama3_json", "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"\nShall I go on?",
                    "Shall I go on?", List.of(), "error: the tool call broke off before the end of its JSON object (the text from"
                            + " there on was read as message text): tool call JSON is invalid at line 2, column 1: expected"
                            + " ',' or '}' but found 'S'; write one JSON object like {\"tool_name\": \"...\", \"arguments\": {...}}");
        }
    }

    @Nested
    class Harmony {

        // vLLM tests/tool_use/test_openai_tool_parser.py, test_extract_tool_calls_with_content (rendered by
        // openai_harmony: the recipient in the role part of the header)
        private static final String CALL = "<|channel|>analysis<|message|>User asks: \"What is the weather in Tokyo?\""
                + " We need to use get_current_weather tool.<|end|><|start|>assistant to=functions.get_current_weather"
                + "<|channel|>commentary <|constrain|>json<|message|>{\"location\": \"Tokyo\"}<|call|>";

        @Test
        void analysisIsThinkingAndARecipientMakesACall() {
            expect("harmony", CALL, "", List.of("User asks: \"What is the weather in Tokyo?\" We need to use"
                    + " get_current_weather tool."), "get_current_weather {\"location\":\"Tokyo\"}");
        }

        @Test
        void finalChannelIsMessage() {
            expect("harmony", "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>"
                    + "This tool call will get the weather.<|return|>", "This tool call will get the weather.",
                    List.of("Easy."));
        }

        @Test
        void recipientInTheChannelPartAndEmptyArguments() {
            expect("harmony", "<|start|>assistant<|channel|>commentary to=functions.no_args <|constrain|>json<|message|>"
                    + "<|call|>", "", List.of(), "no_args {}");
        }

        // the name comes where the recipient's name ends (a space or "<|"), not at <|message|>
        @Test
        void theNameIsKnownWhereTheRecipientEnds() {
            assertThat(namesByChar(options("harmony"), CALL)).containsExactly(
                    "get_current_weather@" + CALL.indexOf("<|channel|>commentary <|constrain|>"));
            String channelPart = "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>";
            assertThat(namesByChar(options("harmony"), channelPart)).containsExactly("f@" + channelPart.indexOf(" <|constrain|>"));
        }

        @Test
        void anOverlongHeaderIsMessageText() {
            String header = "<|start|>assistant " + "x".repeat(600);
            expect("harmony", header + "<|message|>hi<|end|>", header + "<|message|>hi", List.of());
        }

        @Test
        void argumentsThatAreNotJsonAreAnError() {
            assertThat(errorOf("harmony", "<|channel|>commentary to=functions.f<|message|>foo<|call|>"))
                    .contains("not valid JSON");
        }
    }

    @Nested
    class KimiThink {

        @Test
        void triangleDelimitedThinking() {
            expect("kimi_think", "◁think▷Let me add 2 and 2.◁/think▷The answer is 4.", "The answer is 4.",
                    List.of("Let me add 2 and 2."));
        }

        @Test
        void thinkingOpenConsumesARepeatedOpener() {
            StreamOptions open = StreamOptions.builder().dialect(Dialect.named("kimi_think")).thinkingOpen(true).build();
            expect(open, "◁think▷x◁/think▷y", "y", List.of("x"));
        }
    }

    @Test
    void everyDialectHasANameAndUnknownNamesSayWhatIsKnown() {
        assertThat(Dialect.names()).containsExactly("bellows", "hermes", "qwen3_coder", "llama3_json", "mistral",
                "deepseek_v3", "kimi_k2", "glm45", "minimax_m2", "harmony", "kimi_think");
        assertThat(Dialect.named("Hermes").name()).isEqualTo("hermes");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> Dialect.named("qwen4")))
                .hasMessageContaining("unknown dialect 'qwen4'").hasMessageContaining("kimi_think");
    }

    @Test
    void theContractsOwnTagsBesideADialectWhenAskedFor() {
        String text = "<thinking>plan</thinking>Calling. <tool>{\"name\": \"x\", \"arguments\": {}}</tool>"
                + "<|tool_calls_section_begin|><|tool_call_begin|>functions.y:0<|tool_call_argument_begin|>{}"
                + "<|tool_call_end|><|tool_calls_section_end|>";
        expect(StreamOptions.builder().dialect(Dialect.named("kimi_k2")).bellowsTagsToo(true).build(), text,
                "Calling.", List.of("plan"), "x {}", "y {}");
        expect("kimi_k2", text, "<thinking>plan</thinking>Calling. <tool>{\"name\": \"x\", \"arguments\": {}}</tool>",
                List.of(), "y {}");
        for (String dialect : Dialect.names()) {
            StreamOptions both = StreamOptions.builder().dialect(Dialect.named(dialect)).bellowsTagsToo(true).build();
            assertThat(calls(run(both, "<tool>{\"name\": \"x\"}</tool> ok"))).as(dialect).containsExactly("x {}");
        }
        assertThat(calls(run(StreamOptions.builder().dialect(Dialect.named("glm45")).bellowsTagsToo(true).build(),
                "<tool>{\"name\": \"x\"")).getFirst()).contains("never closed").contains("</tool>");
    }

    @Test
    void theDefaultDialectIsBellows() {
        assertThat(StreamOptions.defaults().dialect()).isSameAs(Dialect.BELLOWS);
        List<StreamEvent> events = StreamTesting.run(StreamOptions.defaults(),
                List.of(StreamChunk.message("<tool_call>{\"name\": \"x\"}</tool_call>")));
        assertThat(calls((Complete) events.getLast())).containsExactly("x {}");
    }
}
