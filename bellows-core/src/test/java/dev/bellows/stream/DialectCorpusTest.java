package dev.bellows.stream;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import static dev.bellows.stream.DialectTesting.namesByChar;
import static dev.bellows.stream.DialectTesting.runAnyChunking;
import static dev.bellows.stream.DialectTesting.thinking;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.Complete;
import dev.bellows.event.StreamEvent.ToolCallArgument;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The dialect corpus from the peers' own tests, for the dialects the peers test most and Bellows
 * read least well: gpt-oss's harmony, GLM-4.7, Kimi-K2, Llama 3 JSON, DeepSeek V3.1 and Mistral
 * before tokenizer v11. Each case of vLLM's {@code tests/tool_parsers/} (test_openai, test_glm47_moe,
 * test_glm4_moe, test_kimi_k2, test_llama3_json, test_deepseekv31, test_mistral), SGLang's
 * {@code test/registered/function_call/} (test_gpt_oss_detector, test_glm47_moe_detector,
 * test_kimik2_detector, test_deepseekv31_detector, test_function_call_parser) and llama.cpp's
 * {@code tests/test-chat.cpp} for these formats is one test here, named after its source; its model
 * output is data, the expectation is Bellows' (where it differs from the peer's, the comment says
 * why). Every case runs cut every way ({@link DialectTesting#runAnyChunking}: in two pieces at every
 * code point, one code point a chunk, and in chunks of 2 to 11), with and without
 * {@code argument-events}. Calls are written {@code name {arguments}}, or {@code error} for a call
 * that could not be decoded (its reason is the model's to read, and free).
 */
class DialectCorpusTest {

    private static StreamOptions options(String dialect) {
        return DialectTesting.options(dialect);
    }

    private static StreamOptions options(String dialect, String toolsJson) {
        return StreamOptions.builder().dialect(Dialect.named(dialect)).toolSchemas(schemas(toolsJson)).build();
    }

    private static StreamOptions thinkingOpen(String dialect) {
        return StreamOptions.builder().dialect(Dialect.named(dialect)).thinkingOpen(true).build();
    }

    static ToolSchemas schemas(String json) {
        try {
            return ToolSchemas.fromJson(Jackson.JSON.readTree(json));
        } catch (JacksonException e) {
            throw new AssertionError(e);
        }
    }

    private static Complete complete(StreamOptions options, String text) {
        return (Complete) runAnyChunking(options, text).getLast();
    }

    static List<String> calls(Complete complete) {
        List<String> out = new ArrayList<>();
        for (DecodedToolCall call : complete.toolCalls()) {
            out.add(switch (call) {
                case ToolCall c -> c.toolName() + " " + c.arguments();
                case ToolCallError e -> "error";
            });
        }
        return out;
    }

    private static void expect(StreamOptions options, String text, String message, List<String> thinking,
            String... calls) {
        Complete complete = complete(options, text);
        assertThat(complete.message()).as("message").isEqualTo(message);
        assertThat(thinking(complete)).as("thinking").isEqualTo(thinking);
        assertThat(calls(complete)).as("tool calls").containsExactly(calls);
    }

    private static void expect(String dialect, String text, String message, List<String> thinking, String... calls) {
        expect(options(dialect), text, message, thinking, calls);
    }

    /** The argument events of the text in one chunk, with the option on, as {@code name=value}. */
    private static List<String> arguments(StreamOptions options, String text) {
        List<String> out = new ArrayList<>();
        for (StreamEvent e : StreamTesting.run(options.withArgumentEvents(true), List.of(StreamChunk.message(text)))) {
            if (e instanceof ToolCallArgument a) {
                out.add(a.name() + "=" + a.value());
            }
        }
        return out;
    }

    private static final String WEATHER_TOOLS = "[{\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\","
            + " \"properties\": {\"city\": {\"type\": \"string\"}, \"unit\": {\"type\": \"string\"}}}}]";

    // =======================================================================================
    @Nested
    class Harmony {

        /** A tool call as openai_harmony renders it: the recipient in the channel part. */
        private static String call(String name, String constrain, String body) {
            return "<|start|>assistant<|channel|>commentary to=functions." + name + constrain + "<|message|>" + body
                    + "<|call|>";
        }

        private static final String ANALYSIS = "<|channel|>analysis<|message|>User asks: \"What is the weather in Tokyo?\""
                + " We need to use get_current_weather tool.<|end|>";
        private static final String REASONING = "User asks: \"What is the weather in Tokyo?\" We need to use"
                + " get_current_weather tool.";

        // vLLM test_openai_tool_parser.py, test_extract_tool_calls_no_tools
        @Test
        void vllmNoTools() {
            expect("harmony", "<|channel|>final<|message|>This is a test<|end|>", "This is a test", List.of());
        }

        // vLLM test_extract_tool_calls_single_tool, both argument layouts
        @Test
        void vllmSingleTool() {
            for (String args : List.of("{\"location\": \"Tokyo\"}", "{\n\"location\": \"Tokyo\"\n}")) {
                expect("harmony", ANALYSIS + call("get_current_weather", " <|constrain|>json", args), "",
                        List.of(REASONING), "get_current_weather {\"location\":\"Tokyo\"}");
            }
        }

        // vLLM test_extract_tool_calls_multiple_tools: with and without <|constrain|>json, non-JSON
        // (an error here: arguments must be a JSON object; vLLM passes "foo" on), {} and empty (no arguments)
        @Test
        void vllmMultipleTools() {
            String text = ANALYSIS
                    + call("get_current_weather", " <|constrain|>json", "{\"location\": \"Tokyo\"}")
                    + call("get_user_location", " <|constrain|>json", "{\"location\": \"Tokyo\"}")
                    + call("no_content_type", "", "{\"location\": \"Tokyo\"}")
                    + call("not_json_no_content_type", "", "foo")
                    + call("empty_args", " <|constrain|>json", "{}")
                    + call("no_args", " <|constrain|>json", "");
            expect("harmony", text, "", List.of(REASONING), "get_current_weather {\"location\":\"Tokyo\"}",
                    "get_user_location {\"location\":\"Tokyo\"}", "no_content_type {\"location\":\"Tokyo\"}", "error",
                    "empty_args {}", "no_args {}");
            assertThat(namesByChar(options("harmony"), text)).extracting(n -> n.substring(0, n.indexOf('@')))
                    .containsExactly("get_current_weather", "get_user_location", "no_content_type",
                            "not_json_no_content_type", "empty_args", "no_args");
        }

        // vLLM test_extract_tool_calls_with_content: a call after the analysis, then a final message
        @Test
        void vllmCallThenFinalMessage() {
            expect("harmony", ANALYSIS + call("get_current_weather", " <|constrain|>json", "{\"location\": \"Tokyo\"}")
                            + "<|start|>assistant<|channel|>final<|message|>This tool call will get the weather.<|end|>",
                    "This tool call will get the weather.", List.of(REASONING),
                    "get_current_weather {\"location\":\"Tokyo\"}");
        }

        // SGLang test_gpt_oss_detector.py, test_detect_and_parse_truncate_normal and its streaming twin:
        // SGLang drops the text after a call; here nothing the model wrote is lost, it is message text
        @Test
        void sglangTextAfterACallIsKept() {
            expect("harmony", "<|channel|>analysis<|message|>Reasoning...<|end|><|start|>assistant<|channel|>commentary"
                            + " to=functions.read_file <|constrain|>json<|message|>{\n  \"files\": []\n}<|call|>"
                            + "<|start|>assistant<|channel|>final<|message|>This text should be truncated.",
                    "This text should be truncated.", List.of("Reasoning..."), "read_file {\"files\":[]}");
        }

        // SGLang test_parse_streaming_fast_path_fix: plain text after a finished call
        @Test
        void sglangPlainTextAfterACall() {
            expect("harmony", "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{}"
                    + "<|call|>This is normal text that should be ignored.", "This is normal text that should be ignored.",
                    List.of(), "read_file {}");
        }

        // llama.cpp test-chat.cpp, GPT-OSS: content in the final and in the commentary channel
        @Test
        void llamaCppContentOnly() {
            expect("harmony", "<|channel|>final<|message|>Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of());
            expect("harmony", "<|channel|>commentary<|message|>Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?",
                    List.of());
        }

        // llama.cpp: analysis then final; analysis alone (the stream cut in it)
        @Test
        void llamaCppAnalysisAndFinal() {
            expect("harmony", "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>final"
                    + "<|message|>Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of("I'm\nthinking"));
            expect("harmony", "<|channel|>analysis<|message|>I'm\nthinking", "", List.of("I'm\nthinking"));
        }

        // llama.cpp: the output starts inside the header that the prompt's <|start|>assistant began:
        // the recipient in the role part, with or without <|constrain|>json
        @Test
        void llamaCppRecipientInTheRoleHeaderRightAtTheStart() {
            expect("harmony", " to=functions.special_function<|channel|>analysis<|message|>{\"arg1\": 1}", "", List.of(),
                    "special_function {\"arg1\":1}");
            expect("harmony", " to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{\"arg1\": 1}",
                    "", List.of(), "special_function {\"arg1\":1}");
            // "to=" is the header only at the very start: in the middle of text it is text
            expect("harmony", "Set to=3 now.", "Set to=3 now.", List.of());
        }

        // llama.cpp: the recipient in the channel part, in the analysis and in the commentary channel
        @Test
        void llamaCppRecipientInTheChannelHeader() {
            expect("harmony", "<|channel|>analysis to=functions.special_function<|message|>{\"arg1\": 1}", "", List.of(),
                    "special_function {\"arg1\":1}");
            expect("harmony", "<|channel|>commentary to=functions.special_function<|message|>{\"arg1\": 1}", "", List.of(),
                    "special_function {\"arg1\":1}");
        }

        // llama.cpp: reasoning, then a call whose recipient is in the role header (and no <|call|>)
        @Test
        void llamaCppCallAfterAnalysis() {
            expect("harmony", "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant"
                            + " to=functions.special_function<|channel|>analysis<|message|>{\"arg1\": 1}", "",
                    List.of("I'm\nthinking"), "special_function {\"arg1\":1}");
        }

        // llama.cpp: "Complex tool calling", a '<' inside the JSON arguments
        @Test
        void llamaCppComplexCall() {
            String text = "<|channel|>analysis<|message|>Thinking about edit...<|end|><|start|>assistant<|channel|>commentary"
                    + " to=functions.edit <|constrain|>json<|message|>{\"oldString\": \"if (part < railCount - 1) {\","
                    + " \"newString\": \"if (part < 4) {\", \"replaceAll\": false}";
            expect("harmony", text, "", List.of("Thinking about edit..."),
                    "edit {\"oldString\":\"if (part < railCount - 1) {\",\"newString\":\"if (part < 4) {\",\"replaceAll\":false}");
            assertThat(arguments(options("harmony"), text)).containsExactly("oldString=\"if (part < railCount - 1) {\"",
                    "newString=\"if (part < 4) {\"", "replaceAll=false");
        }

        // llama.cpp: structured output in the final channel with <|constrain|>json is the answer
        @Test
        void llamaCppStructuredOutput() {
            expect("harmony", "<|channel|>analysis<|message|>I need to output the invoice details in JSON<|end|>"
                            + "<|start|>assistant<|channel|>final <|constrain|>json<|message|>{\"amount\": 123.45, \"date\": \"2025-12-03\"}",
                    "{\"amount\": 123.45, \"date\": \"2025-12-03\"}", List.of("I need to output the invoice details in JSON"));
        }

        // llama.cpp: unsolicited built-in tools (container.exec, python): llama.cpp drops them; here
        // they are calls named as the recipient, errors the model can act on (the arguments are not JSON)
        @Test
        void llamaCppUnsolicitedBuiltinTools() {
            expect("harmony", "<|channel|>analysis<|message|>I will execute python to say hello<|end|><|start|>assistant"
                            + " to=container.exec<|channel|>commentary<|message|>python3 -c 'print(\"hello\")'", "",
                    List.of("I will execute python to say hello"), "error");
            expect("harmony", "<|channel|>analysis<|message|>I will execute python to say hello<|end|><|start|>assistant"
                            + "<|channel|>commentary to=python <|constrain|>code<|message|>print(\"hello\")", "",
                    List.of("I will execute python to say hello"), "error");
        }

        // llama.cpp edge cases: "<|channel|>commentary to=assistant" is not a call
        @Test
        void llamaCppToAssistantIsNoCall() {
            expect("harmony", "<|channel|>commentary to=assistant<|channel|>analysis<|message|>I'm\nthinking<|end|>"
                            + "<|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?",
                    "Hello, world!\nWhat's up?", List.of("I'm\nthinking"));
            expect("harmony", "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>commentary"
                            + " to=assistant<|channel|>final<|message|>Hello, world!\nWhat's up?",
                    "Hello, world!\nWhat's up?", List.of("I'm\nthinking"));
        }

        // llama.cpp, LLM-jp-4.1 (the harmony format with spaces after the special tokens)
        @Test
        void llamaCppSpacesAfterTheSpecialTokens() {
            expect("harmony", "<|channel|> final<|message|> Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?",
                    List.of());
            expect("harmony", "<|channel|> analysis<|message|> I'm\nthinking<|end|><|start|> assistant<|channel|> final"
                    + "<|message|> Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of("I'm\nthinking"));
            expect("harmony", "<|channel|> analysis<|message|> I'm\nthinking<|end|><|start|> assistant"
                            + " to=functions.special_function<|channel|> commentary <|constrain|>  json<|message|> {\"arg1\": 1}",
                    "", List.of("I'm\nthinking"), "special_function {\"arg1\":1}");
            expect("harmony", "<|channel|> commentary to=functions.special_function<|message|> {\"arg1\": 1}", "", List.of(),
                    "special_function {\"arg1\":1}");
        }

        // llama.cpp, LLM-jp-4.1: parallel calls separated by <|end|>
        @Test
        void llamaCppParallelCallsEndedByEnd() {
            expect("harmony", "<|channel|> analysis<|message|> I'm\nthinking<|end|><|start|> assistant"
                            + " to=functions.special_function<|channel|> commentary <|constrain|>  json<|message|> {\"arg1\": 1}<|end|>"
                            + "<|start|> assistant to=functions.special_function<|channel|> commentary <|constrain|>  json"
                            + "<|message|> {\"arg1\": 2}", "", List.of("I'm\nthinking"), "special_function {\"arg1\":1}",
                    "special_function {\"arg1\":2}");
        }

        // issue: several calls where <|start|> ends the previous message without <|call|>
        @Test
        void callsEndedByTheNextStart() {
            expect("harmony", "<|start|>assistant to=functions.a<|channel|>commentary <|constrain|>json<|message|>{\"x\": 1}"
                            + "<|start|>assistant to=functions.b<|channel|>commentary<|message|>{}"
                            + "<|start|>assistant<|channel|>final<|message|>Done.", "Done.", List.of(), "a {\"x\":1}", "b {}");
        }

        // issue: the early name in the chunk where the recipient's name ends (a space or "<|"),
        // not at <|message|>; and its argument events as they complete
        @Test
        void theNameWhereTheRecipientEndsAndTheArgumentsAsTheyComplete() {
            String role = "<|start|>assistant to=functions.write_file<|channel|>commentary <|constrain|>json<|message|>"
                    + "{\"path\": \"a.txt\", \"content\": \"x\"}<|call|>";
            assertThat(namesByChar(options("harmony"), role)).containsExactly("write_file@" + role.indexOf("<|channel|>"));
            String channel = "<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{}";
            assertThat(namesByChar(options("harmony"), channel))
                    .containsExactly("write_file@" + channel.indexOf(" <|constrain|>"));
            assertThat(arguments(options("harmony"), role)).containsExactly("path=\"a.txt\"", "content=\"x\"");
        }
    }

    // =======================================================================================
    @Nested
    class Glm47 {

        private static final String TOOLS = "[{\"name\": \"get_current_date\", \"parameters\": {}},"
                + " {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\":"
                + " {\"city\": {\"type\": \"string\"}, \"date\": {\"type\": \"string\"}}}}]";

        private StreamOptions glm() {
            return options("glm45", TOOLS);
        }

        // vLLM test_glm47_moe_tool_parser.py: no call; a call without arguments, inline and with a line break
        @Test
        void vllmNoCallAndZeroArgumentCalls() {
            expect(glm(), "This is a plain response.", "This is a plain response.", List.of());
            expect(glm(), "<tool_call>get_current_date</tool_call>", "", List.of(), "get_current_date {}");
            expect(glm(), "<tool_call>get_current_date\n</tool_call>", "", List.of(), "get_current_date {}");
            // the name ends with the block, at the '<' of its close (a name holds no '<'): it is announced there
            assertThat(namesByChar(glm(), "<tool_call>get_current_date</tool_call>"))
                    .containsExactly("get_current_date@" + "<tool_call>get_current_date</tool_call>".indexOf("</"));
        }

        // vLLM: arguments on the same line as the name (GLM-4.7 writes no line break after it)
        @Test
        void vllmArgumentsOnTheNamesLineAndWithLineBreaks() {
            String same = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>";
            expect(glm(), same, "", List.of(), "get_weather {\"city\":\"Beijing\"}");
            // at the '<' of <arg_key>, although that '<' is held back until the next character (it might start
            // </tool_call>): the name ends there either way
            assertThat(namesByChar(glm(), same)).containsExactly("get_weather@" + same.indexOf("<arg_key>"));
            expect(glm(), "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>", "",
                    List.of(), "get_weather {\"city\":\"Beijing\"}");
        }

        // vLLM: content before; two calls; whitespace before the call is no content
        @Test
        void vllmContentBeforeMultipleAndWhitespace() {
            expect(glm(), "Checking.<tool_call>get_current_date</tool_call>", "Checking.", List.of(), "get_current_date {}");
            expect(glm(), "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
                            + "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value></tool_call>", "",
                    List.of(), "get_weather {\"city\":\"Beijing\"}", "get_weather {\"city\":\"Shanghai\"}");
            expect(glm(), "  \n  <tool_call>get_current_date</tool_call>", "", List.of(), "get_current_date {}");
        }

        // vLLM test_glm47_final_delta_bug.py: the stages of one call, each argument as it completes
        @Test
        void vllmFinalDeltaStages() {
            String text = "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date"
                    + "</arg_key><arg_value>2025-08-01</arg_value></tool_call>";
            expect(glm(), text, "", List.of(), "get_weather {\"city\":\"Beijing\",\"date\":\"2025-08-01\"}");
            assertThat(arguments(glm(), text)).containsExactly("city=\"Beijing\"", "date=\"2025-08-01\"");
        }

        // vLLM test_delays_prefix_only_tool_name_until_exact_match: vLLM holds "get" back while it may
        // still grow into a tool's name; here the stream only appends, and the name ends at <arg_key>
        @Test
        void vllmAPrefixOfAToolsNameIsItsOwnName() {
            expect(glm(), "<tool_call>get<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>", "", List.of(),
                    "get {\"city\":\"Beijing\"}");
        }

        // vLLM test_glm4_moe_tool_parser.py, test_extract_tool_calls: indented calls, several, content before
        @Test
        void vllmGlm4MoeCalls() {
            String dallas = "<tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Dallas</arg_value>\n"
                    + "    <arg_key>state</arg_key>\n    <arg_value>TX</arg_value>\n    <arg_key>unit</arg_key>\n"
                    + "    <arg_value>fahrenheit</arg_value>\n    </tool_call>";
            expect("glm45", dallas, "", List.of(), "get_current_weather {\"city\":\"Dallas\",\"state\":\"TX\",\"unit\":\"fahrenheit\"}");
            expect("glm45", dallas + "\n    " + dallas.replace("Dallas", "Orlando").replace("TX", "FL"), "", List.of(),
                    "get_current_weather {\"city\":\"Dallas\",\"state\":\"TX\",\"unit\":\"fahrenheit\"}",
                    "get_current_weather {\"city\":\"Orlando\",\"state\":\"FL\",\"unit\":\"fahrenheit\"}");
            expect("glm45", "I'll help you check the weather. " + dallas.replace("Dallas", "Seattle").replace("TX", "WA")
                            .replace("fahrenheit", "celsius"), "I'll help you check the weather.", List.of(),
                    "get_current_weather {\"city\":\"Seattle\",\"state\":\"WA\",\"unit\":\"celsius\"}");
            expect("glm45", "I will help you get the weather.<tool_call>get_weather\n    <arg_key>city</arg_key>\n"
                            + "    <arg_value>Beijing</arg_value>\n    <arg_key>date</arg_key>\n    <arg_value>2025-08-01</arg_value>\n"
                            + "    </tool_call>", "I will help you get the weather.", List.of(),
                    "get_weather {\"city\":\"Beijing\",\"date\":\"2025-08-01\"}");
        }

        // vLLM test_extract_tool_calls_with_thinking_tags and test_extract_tool_calls_mixed_content
        @Test
        void vllmThinkingAndMixedContent() {
            expect("glm45", "<think>I want to get the weather.</think>\n\nI will help you get the weather.\n<tool_call>get_weather\n"
                            + "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n"
                            + "<arg_value>2025-08-01</arg_value>\n</tool_call>", "I will help you get the weather.",
                    List.of("I want to get the weather."), "get_weather {\"city\":\"Beijing\",\"date\":\"2025-08-01\"}");
            expect("glm45", "I will help you get the weather info.\n\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
                            + "<arg_value>Beijing</arg_value>\n</tool_call>\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n"
                            + "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n</tool_call>",
                    "I will help you get the weather info.\n\nmeaningwhile, I will also check the weather in Shanghai.", List.of(),
                    "get_weather {\"city\":\"Beijing\"}", "get_weather {\"city\":\"Shanghai\"}");
        }

        // vLLM test_extract_tool_calls_malformed_xml (vLLM leaves the outcome open): a key without its
        // close tag is an error the model can act on
        @Test
        void vllmMalformedXml() {
            expect("glm45", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Seattle</arg_value>\n"
                    + "<arg_key>incomplete_arg\n<arg_value>value</arg_value>\n</tool_call>", "", List.of(), "error");
        }

        // vLLM test_extract_tool_calls_empty_arguments, test_zero_argument_tool_call, special characters, unicode
        @Test
        void vllmEmptyArgumentsSpecialCharactersAndUnicode() {
            expect("glm45", "<tool_call>get_current_time\n</tool_call>", "", List.of(), "get_current_time {}");
            expect("glm45", "<tool_call>send_message\n<arg_key>recipient</arg_key>\n<arg_value>Amy</arg_value>\n"
                            + "<arg_key>message</arg_key>\n<arg_value>It is a nice day</arg_value>\n<arg_key>priority</arg_key>\n"
                            + "<arg_value>high</arg_value>\n</tool_call>", "", List.of(),
                    "send_message {\"recipient\":\"Amy\",\"message\":\"It is a nice day\",\"priority\":\"high\"}");
            expect("glm45", "<tool_call>send_message\n<arg_key>greeting</arg_key>\n<arg_value>你好世界</arg_value>\n"
                    + "<arg_key>emoji</arg_key>\n<arg_value>🎉</arg_value>\n</tool_call>", "", List.of(),
                    "send_message {\"greeting\":\"你好世界\",\"emoji\":\"🎉\"}");
            expect("glm45", "<tool_call>send_message\n<arg_key>message</arg_key><arg_value>Hello \"world\"\nNew line</arg_value>"
                    + "</tool_call>", "", List.of(), "send_message {\"message\":\"Hello \\\"world\\\"\\nNew line\"}");
        }

        // vLLM test_extract_tool_calls_incomplete_tool_call and test_malformed_tool_call_no_regex_match:
        // vLLM keeps an unclosed call as text; by the stream contract (1.1) a stop sequence may have
        // swallowed the close, so a complete call still counts, and an empty one is an error
        @Test
        void vllmUnclosedCalls() {
            expect("glm45", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date"
                            + "</arg_key>\n<arg_value>2025-08-01</arg_value>", "", List.of(),
                    "get_weather {\"city\":\"Beijing\",\"date\":\"2025-08-01\"}");
            expect("glm45", "<tool_call>   ", "", List.of(), "error");
        }

        // vLLM test_extract_tool_calls_numeric_deserialization: without a schema, a value that is JSON
        // is that JSON value (numbers as numbers)
        @Test
        void vllmNumbersAsNumbersWithoutASchema() {
            String text = "<tool_call>calculate\n<arg_key>operation</arg_key>\n<arg_value>add</arg_value>\n<arg_key>a</arg_key>\n"
                    + "<arg_value>42</arg_value>\n<arg_key>b</arg_key>\n<arg_value>3.14</arg_value>\n<arg_key>enabled</arg_key>\n"
                    + "<arg_value>true</arg_value>\n</tool_call>";
            expect(options("glm45", WEATHER_TOOLS), text, "", List.of(),
                    "calculate {\"operation\":\"add\",\"a\":42,\"b\":3.14,\"enabled\":true}");
            assertThat(arguments(options("glm45"), text)).containsExactly("operation=\"add\"", "a=42", "b=3.14", "enabled=true");
        }

        // vLLM test_whitespace_preserved_in_arg_values, anyOf and type-list strings, booleans, Python's True
        @Test
        void vllmTypedByTheSchema() {
            expect(options("glm45", "[{\"name\": \"apply_diff\", \"parameters\": {\"properties\": {\"s\": {\"type\": \"string\"}}}}]"),
                    "<tool_call>apply_diff\n<arg_key>s</arg_key>\n<arg_value>    indented code    </arg_value>\n</tool_call>", "",
                    List.of(), "apply_diff {\"s\":\"    indented code    \"}");
            expect(options("glm45", "[{\"name\": \"configure\", \"parameters\": {\"properties\": {\"api_key\": {\"anyOf\":"
                            + " [{\"type\": \"string\"}, {\"type\": \"null\"}]}, \"enabled\": {\"type\": \"boolean\"}}}},"
                            + " {\"name\": \"log\", \"parameters\": {\"properties\": {\"message\": {\"type\": [\"string\", \"null\"]}}}}]"),
                    "<tool_call>configure<arg_key>api_key</arg_key><arg_value>sk-12345678</arg_value><arg_key>enabled</arg_key>"
                            + "<arg_value>True</arg_value></tool_call><tool_call>log<arg_key>message</arg_key><arg_value>test message"
                            + "</arg_value></tool_call>", "", List.of(),
                    "configure {\"api_key\":\"sk-12345678\",\"enabled\":true}", "log {\"message\":\"test message\"}");
            expect("glm45", "<tool_call>test<arg_key>value</arg_key><arg_value>True</arg_value><arg_key>none</arg_key>"
                    + "<arg_value>None</arg_value><arg_key>text</arg_key><arg_value>random text</arg_value></tool_call>", "",
                    List.of(), "test {\"value\":true,\"none\":null,\"text\":\"random text\"}");
        }

        // llama.cpp test-chat.cpp, GLM-4.6 and GLM-4.7-Flash (whose template forces <think> open)
        @Test
        void llamaCppGlm46And47Flash() {
            String special = "[{\"name\": \"special_function\", \"parameters\": {\"type\": \"object\", \"properties\":"
                    + " {\"arg1\": {\"type\": \"integer\"}}}}, {\"name\": \"special_function_with_opt\", \"parameters\":"
                    + " {\"properties\": {\"arg1\": {\"type\": \"integer\"}, \"arg2\": {\"type\": \"integer\"}}}}]";
            expect(options("glm45", special), "<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n"
                    + "</tool_call>", "", List.of(), "special_function {\"arg1\":1}");
            expect("glm45", "Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of());
            StreamOptions open = StreamOptions.builder().dialect(Dialect.named("glm45")).thinkingOpen(true)
                    .toolSchemas(schemas(special)).build();
            expect(open, "I'm\nthinking</think>Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of("I'm\nthinking"));
            expect(options("glm45", special), "<tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value>"
                    + "</tool_call>", "", List.of(), "special_function {\"arg1\":1}");
            expect(open, "I'm\nthinking</think><tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value>"
                    + "</tool_call>", "", List.of("I'm\nthinking"), "special_function {\"arg1\":1}");
            expect(options("glm45", special), "<tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value>"
                            + "</tool_call><tool_call>special_function_with_opt<arg_key>arg1</arg_key><arg_value>1</arg_value>"
                            + "<arg_key>arg2</arg_key><arg_value>2</arg_value></tool_call>", "", List.of(),
                    "special_function {\"arg1\":1}", "special_function_with_opt {\"arg1\":1,\"arg2\":2}");
            expect(open, "Let me read the diff content.</think><tool_call>read_file_diff_md</tool_call>", "",
                    List.of("Let me read the diff content."), "read_file_diff_md {}");
        }

        // llama.cpp, the same format (Spark2.5): typed values, Chinese text, objects, arrays, no arguments
        @Test
        void llamaCppTypedValuesInOneAnswer() {
            String tools = "[{\"name\": \"magic_int\", \"parameters\": {\"properties\": {\"ref\": {\"type\": \"integer\"},"
                    + " \"name\": {\"type\": \"string\"}}}}, {\"name\": \"amount\", \"parameters\": {\"properties\": {\"orig\":"
                    + " {\"type\": \"number\"}}}}, {\"name\": \"toggle\", \"parameters\": {\"properties\": {\"enabled\": {\"type\":"
                    + " \"boolean\"}}}}, {\"name\": \"set_config\", \"parameters\": {\"properties\": {\"config\": {\"type\":"
                    + " \"object\"}}}}, {\"name\": \"nested_args\", \"parameters\": {\"properties\": {\"tags\": {\"type\":"
                    + " \"array\"}, \"entries\": {\"type\": \"array\"}}}}, {\"name\": \"empty_args\", \"parameters\": {}}]";
            expect(options("glm45", tools), "Preparing updates.<tool_call>magic_int<arg_key>ref</arg_key><arg_value>42</arg_value>"
                            + "<arg_key>name</arg_key><arg_value>上海</arg_value></tool_call><tool_call>amount<arg_key>orig</arg_key>"
                            + "<arg_value>2.5</arg_value></tool_call><tool_call>toggle<arg_key>enabled</arg_key><arg_value>true"
                            + "</arg_value></tool_call><tool_call>set_config<arg_key>config</arg_key><arg_value>{\"source\":"
                            + " \"spark\", \"options\": {\"strict\": true}}</arg_value></tool_call><tool_call>nested_args<arg_key>tags"
                            + "</arg_key><arg_value>[\"alpha\", \"测试\"]</arg_value><arg_key>entries</arg_key><arg_value>[{\"id\": 1,"
                            + " \"label\": \"first\"}, {\"id\": 2, \"label\": \"第二\"}]</arg_value></tool_call><tool_call>empty_args"
                            + "</tool_call>", "Preparing updates.", List.of(),
                    "magic_int {\"ref\":42,\"name\":\"上海\"}", "amount {\"orig\":2.5}", "toggle {\"enabled\":true}",
                    "set_config {\"config\":{\"source\":\"spark\",\"options\":{\"strict\":true}}}",
                    "nested_args {\"tags\":[\"alpha\",\"测试\"],\"entries\":[{\"id\":1,\"label\":\"first\"},{\"id\":2,\"label\":\"第二\"}]}",
                    "empty_args {}");
        }

        // SGLang test_glm47_moe_detector.py: basic, several, no arguments, text before, empty value,
        // special characters, nested JSON, empty structures, several in one chunk, text around
        @Test
        void sglangGlm47Detector() {
            String weather = "[{\"name\": \"get_weather\", \"parameters\": {\"properties\": {\"city\": {\"type\": \"string\"},"
                    + " \"date\": {\"type\": \"string\"}}}}]";
            expect(options("glm45", weather), "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value>"
                            + "<arg_key>date</arg_key><arg_value>2024-06-27</arg_value></tool_call><tool_call>get_weather"
                            + "<arg_key>city</arg_key><arg_value>Shanghai</arg_value><arg_key>date</arg_key><arg_value>2024-06-28"
                            + "</arg_value></tool_call>", "", List.of(), "get_weather {\"city\":\"Beijing\",\"date\":\"2024-06-27\"}",
                    "get_weather {\"city\":\"Shanghai\",\"date\":\"2024-06-28\"}");
            expect("glm45", "<tool_call>list_filenames</tool_call>", "", List.of(), "list_filenames {}");
            expect("glm45", "I'll create a task.<tool_call>create_task<arg_key>title</arg_key><arg_value>Go to Beijing"
                            + "</arg_value><arg_key>location</arg_key><arg_value>San Francisco</arg_value></tool_call>",
                    "I'll create a task.", List.of(), "create_task {\"title\":\"Go to Beijing\",\"location\":\"San Francisco\"}");
            expect("glm45", "<tool_call>create_note<arg_key>title</arg_key><arg_value>Test</arg_value><arg_key>content</arg_key>"
                    + "<arg_value></arg_value></tool_call>", "", List.of(), "create_note {\"title\":\"Test\",\"content\":\"\"}");
            expect("glm45", "<tool_call>execute_command<arg_key>command</arg_key><arg_value>echo Hello & World</arg_value>"
                    + "</tool_call>", "", List.of(), "execute_command {\"command\":\"echo Hello & World\"}");
            expect(options("glm45", "[{\"name\": \"process_data\", \"parameters\": {\"properties\": {\"data\": {\"type\":"
                            + " \"object\"}}}}, {\"name\": \"store_data\", \"parameters\": {\"properties\": {\"id\": {\"type\":"
                            + " \"string\"}, \"code\": {\"type\": \"string\"}}}}]"),
                    "<tool_call>process_data<arg_key>data</arg_key><arg_value>{\"level1\": {\"level2\": {\"value\": \"deep\"}}}"
                            + "</arg_value></tool_call><tool_call>store_data<arg_key>id</arg_key><arg_value>12345</arg_value>"
                            + "<arg_key>code</arg_key><arg_value>67.89</arg_value></tool_call>", "", List.of(),
                    "process_data {\"data\":{\"level1\":{\"level2\":{\"value\":\"deep\"}}}}",
                    "store_data {\"id\":\"12345\",\"code\":\"67.89\"}");
            expect("glm45", "First I'll do this.<tool_call>action</tool_call>Then I'll do that.",
                    "First I'll do this.Then I'll do that.", List.of(), "action {}");
            expect("glm45", "结构：<tool_call>list_dir</tool_call>", "结构：", List.of(), "list_dir {}");
        }

        // SGLang test_array_argument_with_escaped_json: an array schema and JSON escaped once more
        @Test
        void sglangEscapedJsonInAnArray() {
            StreamOptions todo = options("glm45", "[{\"name\": \"todo_write\", \"parameters\": {\"properties\": {\"todos\":"
                    + " {\"type\": \"array\"}}}}]");
            expect(todo, "<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{\"id\": \"1\", \"task\": \"Check\","
                    + " \"status\": \"in_progress\"}]</arg_value>\n</tool_call>", "", List.of(),
                    "todo_write {\"todos\":[{\"id\":\"1\",\"task\":\"Check\",\"status\":\"in_progress\"}]}");
            expect(todo, "<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{\\\"id\\\": \\\"1\\\", \\\"task\\\":"
                    + " \\\"Check\\\", \\\"status\\\": \\\"pending\\\"}]</arg_value>\n</tool_call>", "", List.of(),
                    "todo_write {\"todos\":[{\"id\":\"1\",\"task\":\"Check\",\"status\":\"pending\"}]}");
        }

        // SGLang test_invalid_tool_call / test_error_undefined_tool: SGLang drops a call to a tool it was
        // not given; here the call stands and the agent answers that the tool does not exist
        @Test
        void sglangUndefinedTool() {
            expect(options("glm45", TOOLS), "<tool_call>nonexistent_function<arg_key>param</arg_key><arg_value>value"
                    + "</arg_value></tool_call>", "", List.of(), "nonexistent_function {\"param\":\"value\"}");
        }
    }

    // =======================================================================================
    @Nested
    class KimiK2 {

        private static String call(String id, String args) {
            return "<|tool_call_begin|>" + id + " <|tool_call_argument_begin|>" + args + "<|tool_call_end|>";
        }

        private static String section(String... calls) {
            return "<|tool_calls_section_begin|>" + String.join("", calls) + "<|tool_calls_section_end|>";
        }

        // vLLM test_kimi_k2_tool_parser.py, test_extract_tool_calls (every parametrized case)
        @Test
        void vllmExtractToolCalls() {
            expect("kimi_k2", "This is a test", "This is a test", List.of());
            expect("kimi_k2", "I'll check. " + section(call("functions.get_weather:0", "{\"city\": \"Beijing\"}")),
                    "I'll check.", List.of(), "get_weather {\"city\":\"Beijing\"}");
            expect("kimi_k2", "Compare weather. " + section(call("functions.get_weather:0", "{\"city\": \"Beijing\"}"),
                            call("functions.get_weather:1", "{\"city\": \"Shanghai\"}")), "Compare weather.", List.of(),
                    "get_weather {\"city\":\"Beijing\"}", "get_weather {\"city\":\"Shanghai\"}");
            expect("kimi_k2", "Multiple tasks. " + section(call("functions.get_weather:0", "{\"city\": \"New York\"}"),
                            call("functions.get_news:1", "{\"topic\": \"technology\"}"),
                            call("functions.send_email:2", "{\"to\": \"user@example.com\", \"subject\": \"Daily Update\"}")),
                    "Multiple tasks.", List.of(), "get_weather {\"city\":\"New York\"}", "get_news {\"topic\":\"technology\"}",
                    "send_email {\"to\":\"user@example.com\",\"subject\":\"Daily Update\"}");
            expect("kimi_k2", "Process HTML. " + section(call("functions.process_html:0", "{\"html\": \"<div>content</div>\"}")),
                    "Process HTML.", List.of(), "process_html {\"html\":\"<div>content</div>\"}");
            expect("kimi_k2", "Formatted. " + section(call("functions.process_data:0", "{\n  \"name\": \"test\",\n  \"value\": 123\n}")),
                    "Formatted.", List.of(), "process_data {\"name\":\"test\",\"value\":123}");
            expect("kimi_k2", "No prefix. " + section(call("get_weather:0", "{\"city\": \"Tokyo\"}")), "No prefix.", List.of(),
                    "get_weather {\"city\":\"Tokyo\"}");
            expect("kimi_k2", "Empty args. " + section(call("functions.test:0", "{}")), "Empty args.", List.of(), "test {}");
        }

        // vLLM test_invalid_json_still_extracted (vLLM passes the broken JSON on; here: an error) and
        // test_invalid_funcall_id_skipped (vLLM skips it; here: an error naming what is wrong)
        @Test
        void vllmInvalidJsonAndInvalidId() {
            expect("kimi_k2", "Help. " + section(call("functions.bad:0", "{\"city\": \"Beijing\""),
                    call("functions.good:1", "{\"city\": \"Shanghai\"}")), "Help.", List.of(), "error", "good {\"city\":\"Shanghai\"}");
            expect("kimi_k2", "Help. " + section(call("functions.invalid.0", "{\"city\": \"Beijing\"}"),
                    call("functions.valid:1", "{\"city\": \"Shanghai\"}")), "Help.", List.of(), "error", "valid {\"city\":\"Shanghai\"}");
        }

        // vLLM test_bare_counter, ..._multiple_tools_infers_by_args, ..._skips_unsafe_inference: an id that
        // is a bare counter names the only tool, or the only one whose parameters fit
        @Test
        void vllmBareCounterIds() {
            String read = "{\"name\": \"read_file\", \"parameters\": {\"properties\": {\"path\": {\"type\": \"string\"}}}}";
            String flight = "{\"name\": \"book_flight\", \"parameters\": {\"properties\": {\"city\": {\"type\": \"string\"}}}}";
            String weather = WEATHER_TOOLS.substring(1, WEATHER_TOOLS.length() - 1);
            String args = "{\"city\": \"Tokyo\", \"unit\": \"celsius\"}";
            expect(options("kimi_k2", "[" + weather + "]"), "Let me check. " + section(call("0", args)), "Let me check.",
                    List.of(), "get_weather {\"city\":\"Tokyo\",\"unit\":\"celsius\"}");
            expect(options("kimi_k2", "[" + read + ", " + weather + "]"), "Let me check. " + section(call("0", args)),
                    "Let me check.", List.of(), "get_weather {\"city\":\"Tokyo\",\"unit\":\"celsius\"}");
            expect(options("kimi_k2", "[" + weather + ", " + flight + "]"), "Let me check. "
                    + section(call("0", "{\"city\": \"Tokyo\"}")), "Let me check.", List.of(), "error");
            expect(options("kimi_k2", "[" + weather + ", " + flight + "]"), "Let me check. "
                    + section(call("0", "{\"city\": \"Tokyo\"")), "Let me check.", List.of(), "error");
            // the name is known when the call is: at the end of its close
            assertThat(namesByChar(options("kimi_k2", "[" + weather + "]"), section(call("0", args))))
                    .containsExactly("get_weather@" + (section(call("0", args)).indexOf("<|tool_calls_section_end|>") - 1));
        }

        // vLLM streaming edge cases: noise between the section's markers is dropped; an empty section;
        // a call cut off (an error here: its arguments are not complete JSON); text after the section
        @Test
        void vllmStreamingEdgeCases() {
            expect("kimi_k2", "Reasoning. <|tool_calls_section_begin|> spurious noise <|tool_call_begin|>functions.test:0"
                            + " <|tool_call_argument_begin|>{\"k\": \"v\"} <|tool_call_end|><|tool_calls_section_end|>", "Reasoning.",
                    List.of(), "test {\"k\":\"v\"}");
            expect("kimi_k2", "Reasoning. <|tool_calls_section_begin|><|tool_calls_section_end|>", "Reasoning.", List.of());
            expect("kimi_k2", "I'll check. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                    + " <|tool_call_argument_begin|>{\"city\": \"Bei", "I'll check.", List.of(), "error");
            expect("kimi_k2", "Before. " + section(call("functions.get_weather:0", "{\"city\": \"Tokyo\"} ")) + " After tools.",
                    "Before. After tools.", List.of(), "get_weather {\"city\":\"Tokyo\"}");
        }

        // SGLang test_kimik2_detector.py: basic, several, text before, hyphenated names
        @Test
        void sglangDetector() {
            expect("kimi_k2", "Let me check the file.<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:5"
                            + "<|tool_call_argument_begin|>{\"path\": \"/a.py\"}<|tool_call_end|><|tool_call_begin|>functions.get_weather:6"
                            + "<|tool_call_argument_begin|>{\"city\": \"Tokyo\"}<|tool_call_end|><|tool_calls_section_end|>",
                    "Let me check the file.", List.of(), "ReadFile {\"path\":\"/a.py\"}", "get_weather {\"city\":\"Tokyo\"}");
            expect("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.mcp__portal__search-documents:0"
                            + "<|tool_call_argument_begin|>{\"path\": \"/docs\"}<|tool_call_end|><|tool_calls_section_end|>", "",
                    List.of(), "mcp__portal__search-documents {\"path\":\"/docs\"}");
            expect("kimi_k2", "normal text <", "normal text <", List.of());
        }

        // SGLang: a call inside <think> without </think>, with its section; streamed and in one piece
        @Test
        void sglangCallInsideThinkWithoutItsClose() {
            String text = "<think>Let me read this file...<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:0"
                    + "<|tool_call_argument_begin|>{\"path\": \"/test.py\"}<|tool_call_end|><|tool_calls_section_end|>";
            expect("kimi_k2", text, "", List.of("Let me read this file..."), "ReadFile {\"path\":\"/test.py\"}");
            expect("kimi_k2", "<think>Let me check both files.<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:0"
                            + "<|tool_call_argument_begin|>{\"path\": \"/a.py\"}<|tool_call_end|><|tool_call_begin|>functions.ReadFile:1"
                            + "<|tool_call_argument_begin|>{\"path\": \"/b.py\"}<|tool_call_end|><|tool_calls_section_end|>", "",
                    List.of("Let me check both files."), "ReadFile {\"path\":\"/a.py\"}", "ReadFile {\"path\":\"/b.py\"}");
        }

        // SGLang: text between </think> and the section, several sections, text between two sections
        @Test
        void sglangTextAroundSections() {
            String call1 = section("<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"London\"}"
                    + "<|tool_call_end|>");
            String call2 = section("<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{\"city\": \"Delhi\"}"
                    + "<|tool_call_end|>");
            expect("kimi_k2", "<think>Thinking about it...</think>This is a content:" + call1 + call2, "This is a content:",
                    List.of("Thinking about it..."), "get_weather {\"city\":\"London\"}", "get_weather {\"city\":\"Delhi\"}");
            expect("kimi_k2", "Prefix text:" + call1 + " Now calling next: " + call2, "Prefix text: Now calling next:", List.of(),
                    "get_weather {\"city\":\"London\"}", "get_weather {\"city\":\"Delhi\"}");
        }

        // SGLang test_e2e_unparsable_tool_id_does_not_wedge_stream and ..._malformed_json_args_passes_through:
        // a bad call is an error here (SGLang skips or passes it on); the calls after it are read
        @Test
        void sglangBadCallsDoNotStopTheStream() {
            expect(options("kimi_k2", WEATHER_TOOLS), "normal text before" + section("<|tool_call_begin|>weird@id"
                            + "<|tool_call_argument_begin|>{\"unknown_key\": \"London\"}<|tool_call_end|>")
                            + section("<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Delhi\"}"
                            + "<|tool_call_end|>"), "normal text before", List.of(), "error", "get_weather {\"city\":\"Delhi\"}");
            expect("kimi_k2", section("<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"London\"}"
                            + "<|tool_call_end|>") + section("<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>"
                            + "{\"city\": \"Bad\", \"valid\": fasle<|tool_call_end|>") + section("<|tool_call_begin|>"
                            + "functions.get_weather:2<|tool_call_argument_begin|>{\"city\": \"Delhi\"}<|tool_call_end|>"), "",
                    List.of(), "get_weather {\"city\":\"London\"}", "error", "get_weather {\"city\":\"Delhi\"}");
        }

        // llama.cpp test-chat.cpp, Kimi-K2-Thinking: calls, reasoning, content, several, empty arguments
        @Test
        void llamaCppKimiK2Thinking() {
            String special = "<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0"
                    + "<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_end|><|tool_calls_section_end|>";
            expect("kimi_k2", "Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of());
            expect("kimi_k2", special, "", List.of(), "special_function {\"arg1\":1}");
            expect("kimi_k2", "<think>I'm thinking about this</think>" + special, "", List.of("I'm thinking about this"),
                    "special_function {\"arg1\":1}");
            expect("kimi_k2", "Hello, world!\nWhat's up?" + special, "Hello, world!\nWhat's up?", List.of(),
                    "special_function {\"arg1\":1}");
            expect("kimi_k2", "<think>I need to call two functions</think><|tool_calls_section_begin|><|tool_call_begin|>"
                            + "functions.special_function:0<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_end|><|tool_call_begin|>"
                            + "functions.python:1<|tool_call_argument_begin|>{\"code\": \"print('hey')\"}<|tool_call_end|>"
                            + "<|tool_calls_section_end|>", "", List.of("I need to call two functions"),
                    "special_function {\"arg1\":1}", "python {\"code\":\"print('hey')\"}");
            expect("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.empty_args:0<|tool_call_argument_begin|>"
                    + "{}<|tool_call_end|><|tool_calls_section_end|>", "", List.of(), "empty_args {}");
            expect("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.html:2<|tool_call_argument_begin|>"
                            + "{\"markup\": \"<p>test</p>\"}<|tool_call_end|><|tool_calls_section_end|>", "", List.of(),
                    "html {\"markup\":\"<p>test</p>\"}");
        }

        // llama.cpp: calls inside the thinking block, with their section, and without section or end markers
        @Test
        void llamaCppCallsInsideThinking() {
            expect("kimi_k2", "<think>I need to call two functions<|tool_calls_section_begin|><|tool_call_begin|>"
                            + "functions.special_function:0<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_end|>"
                            + "<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>{\"code\": \"print('hey')\"}"
                            + "<|tool_call_end|><|tool_calls_section_end|>", "", List.of("I need to call two functions"),
                    "special_function {\"arg1\":1}", "python {\"code\":\"print('hey')\"}");
            expect("kimi_k2", "<think>I need to call two functions<|tool_call_begin|>functions.special_function:0"
                            + "<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>"
                            + "{\"code\": \"print('hey')\"}", "", List.of("I need to call two functions"),
                    "special_function {\"arg1\":1}", "python {\"code\":\"print('hey')\"}");
        }

        // llama.cpp "Real life test": a call with neither section nor end marker
        @Test
        void llamaCppCallWithoutSectionOrEnd() {
            String text = "<|tool_call_begin|>functions.execute_command:0<|tool_call_argument_begin|>{\"command\": \"ls -lah\","
                    + " \"cwd\": \"/home/user/development/exllamav3\", \"timeout\": 10}";
            expect("kimi_k2", text, "", List.of(),
                    "execute_command {\"command\":\"ls -lah\",\"cwd\":\"/home/user/development/exllamav3\",\"timeout\":10}");
            assertThat(arguments(options("kimi_k2"), text)).containsExactly("command=\"ls -lah\"",
                    "cwd=\"/home/user/development/exllamav3\"", "timeout=10");
        }
    }

    // =======================================================================================
    @Nested
    class Llama3Json {

        // vLLM test_llama3_json_tool_parser.py: simple with text around, with arguments, no JSON
        @Test
        void vllmCallsAndText() {
            expect("llama3_json", "Here is the result: {\"name\": \"getOpenIncidentsTool\", \"parameters\": {}} Would you like to"
                    + " know more?", "Here is the result: Would you like to know more?", List.of(), "getOpenIncidentsTool {}");
            expect("llama3_json", "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test query\", \"limit\": 10}}", "",
                    List.of(), "searchTool {\"query\":\"test query\",\"limit\":10}");
            expect("llama3_json", "This is just some text without any tool calls",
                    "This is just some text without any tool calls", List.of());
            expect("llama3_json", "{\"name\": \"searchTool\", \"arguments\": {\"query\": \"test\"}}", "", List.of(),
                    "searchTool {\"query\":\"test\"}");
        }

        // vLLM test_extract_tool_calls_invalid_json, ..._missing_name_key, ..._missing_parameters_and_arguments_key:
        // the text stays text, as the peers read it, when the name is not a tool of the catalog
        @Test
        void vllmWhatIsNotACallStaysText() {
            StreamOptions offered = options("llama3_json", WEATHER_TOOLS);
            for (String text : List.of("{\"name\": \"invalidTool\", \"parameters\": {invalid json}", "{\"parameters\": {}}",
                    "{\"name\": \"toolWithoutParams\"}", "{hello world[A(A=\t)A(A=,\t\t)A(A=,\t")) {
                expect(offered, text, text.strip(), List.of());
            }
            // Differs from the peers: an object that starts as a call of the catalog (any name, without one) is a
            // call from its arguments key on, its name announced there, so when it then breaks it is a malformed
            // call the model can act on, and what follows the break is text
            expect("llama3_json", "{\"name\": \"invalidTool\", \"parameters\": {invalid json}", "invalid json}",
                    List.of(), "error");
            expect(offered, "{\"name\": \"get_weather\", \"parameters\": {invalid json}", "invalid json}", List.of(),
                    "error");
        }

        // vLLM: several calls, with spaces around the separators and with text around them
        @Test
        void vllmSeveralCalls() {
            String three = "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test1\"}}; {\"name\": \"getOpenIncidentsTool\","
                    + " \"parameters\": {}}; {\"name\": \"searchTool\", \"parameters\": {\"query\": \"test2\"}}";
            String[] calls = {"searchTool {\"query\":\"test1\"}", "getOpenIncidentsTool {}", "searchTool {\"query\":\"test2\"}"};
            expect("llama3_json", three, "", List.of(), calls);
            expect("llama3_json", three.replace("}; {", "} ; {"), "", List.of(), calls);
            expect("llama3_json", "Here are the results: " + three + " Would you like to know more?",
                    "Here are the results: Would you like to know more?", List.of(), calls);
        }

        // vLLM: deep nesting, brackets and quotes in strings, escaped quotes, trailing prose with braces
        @Test
        void vllmNestingQuotingAndTrailingBraces() {
            expect("llama3_json", "{\"name\": \"complexTool\", \"parameters\": {\"level1\": {\"level2\": {\"level3\": {\"level4\":"
                    + " {\"value\": \"deep\"}}}}}}", "", List.of(),
                    "complexTool {\"level1\":{\"level2\":{\"level3\":{\"level4\":{\"value\":\"deep\"}}}}}");
            expect("llama3_json", "{\"name\": \"simpleTool\", \"parameters\": {\"value\": \"test\"}}; {\"name\": \"complexTool\","
                            + " \"parameters\": {\"config\": {\"database\": {\"connection\": {\"pool\": {\"size\": 10}}}}}}", "",
                    List.of(), "simpleTool {\"value\":\"test\"}",
                    "complexTool {\"config\":{\"database\":{\"connection\":{\"pool\":{\"size\":10}}}}}");
            expect("llama3_json", "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test\"}} The arguments I passed were"
                    + " {\"query\": \"test\"}", "The arguments I passed were {\"query\": \"test\"}", List.of(),
                    "searchTool {\"query\":\"test\"}");
        }

        // vLLM test_extract_tool_calls_streaming_parallel_separators, cut 7 characters a chunk there
        @Test
        void vllmParallelSeparators() {
            for (String separator : List.of("; ", ";", ";\n", "\n")) {
                expect("llama3_json", "{\"name\": \"searchTool\", \"parameters\": {\"query\": \"test1\"}}" + separator
                                + "{\"name\": \"getOpenIncidentsTool\", \"parameters\": {}}", "", List.of(),
                        "searchTool {\"query\":\"test1\"}", "getOpenIncidentsTool {}");
            }
        }

        // SGLang test_function_call_parser.py, TestLlama32Detector: every case
        @Test
        void sglangLlama32Detector() {
            expect("llama3_json", "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", "", List.of(),
                    "get_weather {\"city\":\"Paris\"}");
            expect("llama3_json", "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}};"
                            + "{\"name\": \"get_tourist_attractions\", \"parameters\": {\"city\": \"Paris\"}}", "", List.of(),
                    "get_weather {\"city\":\"Paris\"}", "get_tourist_attractions {\"city\":\"Paris\"}");
            expect("llama3_json", "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {}}<|python_tag|>{\"name\":"
                    + " \"get_tourist_attractions\", \"parameters\": {}}", "", List.of(), "get_weather {}", "get_tourist_attractions {}");
            expect("llama3_json", "{\"name\": \"get_weather\", \"parameters\": {}} Some follow-up text", "Some follow-up text",
                    List.of(), "get_weather {}");
            // Differs from SGLang (text, then the call): the first object started as a call, so it is a malformed one
            expect("llama3_json", "{\"name\": \"get_weather\", \"parameters\": {{\"name\": \"get_weather\", \"parameters\": {}}",
                    "", List.of(), "error", "get_weather {}");
            expect("llama3_json", "This is just plain explanation text.", "This is just plain explanation text.", List.of());
            expect("llama3_json", "Some intro. <|python_tag|>{\"name\": \"get_weather\", \"parameters\": {}}", "Some intro.",
                    List.of(), "get_weather {}");
        }

        // llama.cpp test-chat.cpp, Llama 3.x templates: plain content; a JSON string answer is content
        @Test
        void llamaCppContent() {
            expect("llama3_json", "Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of());
            expect("llama3_json", "\"42\"\n", "\"42\"", List.of());
        }

        // the arguments of a bare call come as they complete, once its start made it a call
        @Test
        void argumentEventsComeAsTheObjectStreams() {
            String text = "{\"name\": \"write_file\", \"parameters\": {\"path\": \"a.txt\", \"content\": \"x\"}}";
            assertThat(arguments(options("llama3_json"), text)).containsExactly("path=\"a.txt\"", "content=\"x\"");
        }
    }

    // =======================================================================================
    @Nested
    class DeepSeekV31 {

        // vLLM test_deepseekv31_tool_parser.py, test_extract_tool_calls_with_tool and ..._with_multiple_tools
        @Test
        void vllmCalls() {
            expect("deepseek_v3", "normal text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{\"x\":1}<｜tool▁call▁end｜>"
                    + "<｜tool▁calls▁end｜>", "normal text", List.of(), "foo {\"x\":1}");
            expect("deepseek_v3", "some prefix text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{\"x\":1}"
                            + "<｜tool▁call▁end｜><｜tool▁call▁begin｜>bar<｜tool▁sep｜>{\"y\":2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
                            + " some suffix text", "some prefix text some suffix text", List.of(), "foo {\"x\":1}", "bar {\"y\":2}");
        }

        // vLLM test_extract_tool_calls_unparsable_block: a block cut off, and one without call markers,
        // are text, as written
        @Test
        void vllmUnparsableBlocksStayText() {
            expect("deepseek_v3", "Let me look that up.<｜tool▁calls▁begin｜>get_weather",
                    "Let me look that up.<｜tool▁calls▁begin｜>get_weather", List.of());
            expect("deepseek_v3", "<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{\"x\":1}<｜tool▁calls▁end｜>",
                    "<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{\"x\":1}<｜tool▁calls▁end｜>", List.of());
            expect("deepseek_v3", "<｜tool▁calls▁begin｜><｜tool▁calls▁end｜>", "<｜tool▁calls▁begin｜><｜tool▁calls▁end｜>", List.of());
        }

        // SGLang test_deepseekv31_detector.py: the same calls however the deltas fall, arguments as they complete
        @Test
        void sglangStreamedCalls() {
            String text = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Tokyo\"}<｜tool▁call▁end｜>"
                    + "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
            expect("deepseek_v3", text, "", List.of(), "get_weather {\"city\":\"Tokyo\"}", "get_weather {\"city\":\"Paris\"}");
            assertThat(arguments(options("deepseek_v3"), text)).containsExactly("city=\"Tokyo\"", "city=\"Paris\"");
            // at the '<' of the separator, although that '<' is held back until it cannot be the call's end
            assertThat(namesByChar(options("deepseek_v3"), text)).containsExactly(
                    "get_weather@" + text.indexOf("<｜tool▁sep｜>"), "get_weather@" + text.lastIndexOf("<｜tool▁sep｜>"));
        }

        // llama.cpp test-chat.cpp, DeepSeek-V3.1: thinking off; thinking forced open, then a call;
        // reasoning, content and two calls; reasoning and content; content alone
        @Test
        void llamaCppDeepSeekV31() {
            expect("deepseek_v3", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"city\": \"XYZCITY\"}"
                    + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "", List.of(), "get_time {\"city\":\"XYZCITY\"}");
            expect(thinkingOpen("deepseek_v3"), "REASONING</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>"
                    + "{\"city\": \"Tokyo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "", List.of("REASONING"),
                    "get_time {\"city\":\"Tokyo\"}");
            expect(thinkingOpen("deepseek_v3"), "REASONING</think>CONTENT<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time"
                            + "<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
                            + "{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "CONTENT", List.of("REASONING"),
                    "get_time {\"city\":\"Paris\"}", "get_weather {\"city\":\"Paris\"}");
            expect(thinkingOpen("deepseek_v3"), "REASONING</think>\nCONTENT", "CONTENT", List.of("REASONING"));
            expect("deepseek_v3", "CONTENT", "CONTENT", List.of());
        }

        // llama.cpp, DeepSeek R1 templates (the V3 form): a fenced call after the forced-open thinking
        @Test
        void llamaCppDeepSeekR1Call() {
            expect(thinkingOpen("deepseek_v3"), "</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
                    + "special_function\n```json\n{\"arg1\": 1}```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "", List.of(""),
                    "special_function {\"arg1\":1}");
        }
    }

    // =======================================================================================
    @Nested
    class MistralBeforeV11 {

        // vLLM test_mistral_tool_parser.py, test_extract_tool_calls_pre_v11_tokenizer (every case)
        @Test
        void vllmPreV11() {
            expect("mistral", "This is a test", "This is a test", List.of());
            expect("mistral", "[TOOL_CALLS][{\"name\": \"add\", \"arguments\":{\"a\": 3.5, \"b\": 4}}]", "", List.of(),
                    "add {\"a\":3.5,\"b\":4}");
            expect("mistral", "[TOOL_CALLS] [{\"name\": \"get_current_weather\", \"arguments\":{\"city\": \"San Francisco\","
                    + " \"state\": \"CA\", \"unit\": \"celsius\"}}]", "", List.of(),
                    "get_current_weather {\"city\":\"San Francisco\",\"state\":\"CA\",\"unit\":\"celsius\"}");
            expect("mistral", "[TOOL_CALLS] [{\"arguments\":{\"city\": \"San Francisco\", \"state\": \"CA\", \"unit\":"
                    + " \"celsius\"}, \"name\": \"get_current_weather\"}]", "", List.of(),
                    "get_current_weather {\"city\":\"San Francisco\",\"state\":\"CA\",\"unit\":\"celsius\"}");
            expect("mistral", "[TOOL_CALLS] [{\"name\": \"add\", \"arguments\": {\"a\": 3.5, \"b\": 4}}, {\"name\":"
                            + " \"get_current_weather\", \"arguments\":{\"city\": \"San Francisco\", \"state\": \"CA\", \"unit\":"
                            + " \"celsius\"}}]", "", List.of(), "add {\"a\":3.5,\"b\":4}",
                    "get_current_weather {\"city\":\"San Francisco\",\"state\":\"CA\",\"unit\":\"celsius\"}");
            expect("mistral", "Hello[TOOL_CALLS] [{\"name\": \"add\", \"arguments\":{\"a\": 1, \"b\": 2}}]", "Hello", List.of(),
                    "add {\"a\":1,\"b\":2}");
            // vLLM drops text after the list; nothing the model wrote is lost here
            expect("mistral", "[TOOL_CALLS] [{\"name\": \"get_current_weather\", \"arguments\":{\"city\": \"Dallas\", \"state\":"
                            + " \"TX\", \"unit\": \"fahrenheit\"}}]\nextra trailing data", "extra trailing data", List.of(),
                    "get_current_weather {\"city\":\"Dallas\",\"state\":\"TX\",\"unit\":\"fahrenheit\"}");
        }

        // vLLM test_extract_tool_calls_pre_v11_multiple_bot_tokens_raises: vLLM refuses a second [TOOL_CALLS];
        // here each list is read
        @Test
        void vllmTwoBotTokens() {
            expect("mistral", "[TOOL_CALLS] [{\"name\": \"add\", \"arguments\":{\"a\": 1}}][TOOL_CALLS] [{\"name\": \"sub\","
                    + " \"arguments\":{\"b\": 2}}]", "", List.of(), "add {\"a\":1}", "sub {\"b\":2}");
        }

        // vLLM test_extract_tool_calls_pre_v11_regex_fallback_fails: a payload that is not JSON stays text;
        // and test_extract_tool_calls_pre_v11_regex_fallback: vLLM searches past leading junk for a list,
        // here the junk ends the tool section and the rest is text as well
        @Test
        void vllmNonJsonPayloadStaysText() {
            expect("mistral", "[TOOL_CALLS] not json at all", "not json at all", List.of());
            expect("mistral", "[TOOL_CALLS]  junk [{\"name\": \"add\", \"arguments\":{\"a\": 1, \"b\": 2}}] trail",
                    "junk [{\"name\": \"add\", \"arguments\":{\"a\": 1, \"b\": 2}}] trail", List.of());
        }

        // vLLM test_extract_tool_calls_streaming_pre_v11_tokenizer: spaced list, string arguments
        @Test
        void vllmStreamedPreV11() {
            expect("mistral", "[TOOL_CALLS]  [ {\"name\":\"add\" , \"arguments\" : {\"a\": 3, \"b\": 4} } ]", "", List.of(),
                    "add {\"a\":3,\"b\":4}");
            expect("mistral", "[TOOL_CALLS] [{\"name\": \"add\", \"arguments\":{\"a\": \"3\", \"b\": \"4\"}}]", "", List.of(),
                    "add {\"a\":\"3\",\"b\":\"4\"}");
        }

        // SGLang test_function_call_parser.py, TestMistralDetector: nested brackets in content, simple, none,
        // text before, the compact NAME[ARGS] form
        @Test
        void sglangMistralDetector() {
            expect("mistral", "[TOOL_CALLS] [{\"name\":\"make_next_step_decision\", \"arguments\":{\"decision\":\"\",\"content\":"
                            + "\"```\\nTOOL: Access a weather API or service\\nANSWER: [City Name] - [Weather Conditions]\\n```\"}}]", "",
                    List.of(), "make_next_step_decision {\"decision\":\"\",\"content\":\"```\\nTOOL: Access a weather API or"
                            + " service\\nANSWER: [City Name] - [Weather Conditions]\\n```\"}");
            expect("mistral", "[TOOL_CALLS] [{\"name\":\"make_next_step_decision\", \"arguments\":{\"decision\":\"TOOL\","
                    + " \"content\":\"Use weather API\"}}]", "", List.of(),
                    "make_next_step_decision {\"decision\":\"TOOL\",\"content\":\"Use weather API\"}");
            expect("mistral", "This is just normal text without any tool calls.",
                    "This is just normal text without any tool calls.", List.of());
            expect("mistral", "[TOOL_CALLS]make_next_step_decision[ARGS]{\"decision\":\"TOOL\", \"content\":\"Use weather API\"}",
                    "", List.of(), "make_next_step_decision {\"decision\":\"TOOL\",\"content\":\"Use weather API\"}");
        }

        // llama.cpp test-chat.cpp, Mistral Nemo: a list whose call carries an id
        @Test
        void llamaCppMistralNemo() {
            expect("mistral", "Hello, world!\nWhat's up?", "Hello, world!\nWhat's up?", List.of());
            expect("mistral", "[TOOL_CALLS][{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}, \"id\": \"123456789\"}]",
                    "", List.of(), "special_function {\"arg1\":1}");
        }

        // the arguments of each call of the list, as they complete
        @Test
        void argumentEvents() {
            assertThat(arguments(options("mistral"), "[TOOL_CALLS] [{\"name\": \"add\", \"arguments\": {\"a\": 3.5, \"b\": 4}},"
                    + " {\"arguments\": {\"c\": [1]}, \"name\": \"sum\"}]")).containsExactly("a=3.5", "b=4", "c=[1]");
        }
    }
}
