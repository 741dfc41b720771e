package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.stream.StreamOptions;
import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code bellows parse} up to the stream processor: options, input errors, help. The bad
 * input line is always the first non-blank one, so no chunk reaches the processor. What the
 * processor makes of good input is in {@link ParseEndToEndTest}.
 */
class ParseCommandTest {

    private static void assertOneErrorLine(Cli.Run run, String line) {
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo(line + System.lineSeparator());
        assertThat(run.out()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            not JSON           | {"content": "x"                     | not valid JSON (column 16: the text ends too early: a closing '}' or ']' is missing)
            not JSON at all    | hello                               | not valid JSON (column 6: unknown word 'hello': a value must be a string in double quotes, a number, an object, an array, true, false or null)
            two values         | {"content": "a"} {"content": "b"}   | not valid JSON (more text after the value, at column 18; put one value on each line)
            array              | [{"content": "a"}]                  | expected a JSON object like {"type": "message", "content": "..."}, got an array
            string             | `"text"`                            | expected a JSON object like {"type": "message", "content": "..."}, got a string "text"
            unknown type       | {"type": "foo", "content": "x"}     | unknown chunk type "foo" (use "message" or "thinking")
            type case          | {"type": "Message", "content": "x"} | unknown chunk type "Message" (use "message" or "thinking")
            a provider's frame | {"type": "tool_call", "content": "{}"} | unknown chunk type "tool_call" (use "message" or "thinking")
            null type          | {"type": null, "content": "x"}      | "type" must be "message" or "thinking", got null
            number type        | {"type": 1, "content": "x"}         | "type" must be "message" or "thinking", got a number
            missing content    | {"type": "thinking"}                | missing "content" (the chunk's text, a string)
            number content     | {"content": 5}                      | "content" must be a string, got a number
            null content       | {"content": null}                   | "content" must be a string, got null
            """)
    void aBadLineEndsTheRunWithOneLineNamingIt(String what, String line, String error) {
        assertOneErrorLine(Cli.run(line + "\n", "parse"), "bellows parse: line 1: " + error);
    }

    @Test
    void theLineNumberCountsBlankLines() {
        assertOneErrorLine(Cli.run("\n   \n\t\r\n{\"type\": \"foo\", \"content\": \"\"}\n{\"content\": \"x\"}\n", "parse"),
                "bellows parse: line 4: unknown chunk type \"foo\" (use \"message\" or \"thinking\")");
    }

    @Test
    void bytesThatAreNotUtf8AreABadLine() {
        byte[] input = {'\n', '{', '"', 'c', 'o', 'n', 't', 'e', 'n', 't', '"', ':', '"', (byte) 0xFF, '"', '}', '\n'};
        assertOneErrorLine(Cli.run(new ByteArrayInputStream(input), "parse"), "bellows parse: line 2: not valid UTF-8");
    }

    @Test
    void aLongUnknownTypeIsCutShortInTheMessage() {
        String type = "x".repeat(500);
        Cli.Run run = Cli.run("{\"type\": \"" + type + "\", \"content\": \"\"}\n", "parse");
        assertOneErrorLine(run, "bellows parse: line 1: unknown chunk type \"" + "x".repeat(60)
                + "\"... (use \"message\" or \"thinking\")");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            not JSON         | {"chunks": [                                  | not valid JSON (column 13: the text ends too early: a closing '}' or ']' is missing)
            not an object    | []                                            | expected a JSON object like {"chunks": [{"type": "message", "content": "..."}, ...]}, got an array
            missing chunks   | {"content": "x"}                              | missing "chunks": in batch mode each line is one stream, {"chunks": [{"type": "message", "content": "..."}, ...]}
            chunks not array | {"chunks": {"content": "x"}}                  | "chunks" must be an array, got an object
            chunk not object | {"chunks": [{"content": "a"}, 3]}             | chunks[1]: expected a JSON object like {"type": "message", "content": "..."}, got a number
            bad chunk type   | {"chunks": [{"type": "tool", "content": ""}]} | chunks[0]: unknown chunk type "tool" (use "message" or "thinking")
            bad chunk text   | {"chunks": [{"content": "a"}, {}]}            | chunks[1]: missing "content" (the chunk's text, a string)
            """)
    void aBadBatchLineEndsTheRunWithOneLineNamingIt(String what, String line, String error) {
        assertOneErrorLine(Cli.run("\n" + line + "\n", "parse", "--batch"), "bellows parse: line 2: " + error);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            empty tool tags        | --tool-tags=                     | --tool-tags: empty tag name; give names separated by commas, e.g. --tool-tags tool,tool_call
            empty name in list     | --tool-tags=a,,b                 | --tool-tags: empty tag name; give names separated by commas, e.g. --tool-tags tool,tool_call
            empty thinking tags    | --thinking-tags=                 | --thinking-tags: empty tag name; give names separated by commas, e.g. --thinking-tags thinking,think
            invalid name           | --thinking-tags=1x               | --thinking-tags: invalid thinking tag name '1x': use ASCII letters, digits, '_', '-', '.', ':' (not first), at most 200 characters
            invalid tool name      | --tool-tags=a<b                  | --tool-tags: invalid tool tag name 'a<b': use ASCII letters, digits, '_', '-', '.', ':' (not first), at most 200 characters
            clash with the default | --thinking-tags=Tool             | --thinking-tags: tag name 'tool' is both a thinking tag and a tool tag: give each set its own names
            unknown option         | --thinking                       | unknown option '--thinking'; did you mean '--thinking-tags'?
            missing value          | --tool-tags                      | Missing required parameter for option '--tool-tags' (NAME)
            extra argument         | stream.jsonl                     | one argument too many
            """)
    void aBadOptionIsAUsageErrorNamingTheFlag(String what, String option, String error) {
        assertOneErrorLine(Cli.run("{\"content\": \"x\"}\n", "parse", option),
                "bellows parse: " + error + " (see 'bellows parse --help')");
    }

    @Test
    void theSameNameInBothFlagsNamesBoth() {
        assertOneErrorLine(Cli.run("", "parse", "--thinking-tags", "x,y", "--tool-tags", "X"),
                "bellows parse: --thinking-tags, --tool-tags: tag name 'x' is both a thinking tag and a tool tag:"
                        + " give each set its own names (see 'bellows parse --help')");
    }

    @Test
    void tagFlagsAreParsedIntoStreamOptions() {
        StreamOptions options = optionsOf("parse", "--thinking-tags", "a,b", "--tool-tags", "call, invoke ",
                "--tool-tags", "run", "--thinking-open", "--tool-ends-thinking");
        assertThat(options.thinkingTags()).containsExactly("a", "b");
        assertThat(options.toolTags()).containsExactly("call", "invoke", "run");
        assertThat(options.thinkingOpen()).isTrue();
        assertThat(options.toolEndsThinking()).isTrue();
    }

    @Test
    void withoutFlagsTheOptionsAreTheDefaults() {
        StreamOptions options = optionsOf("parse");
        assertThat(options.thinkingTags()).isEqualTo(StreamOptions.defaults().thinkingTags());
        assertThat(options.toolTags()).isEqualTo(StreamOptions.defaults().toolTags());
        assertThat(options.thinkingOpen()).isFalse();
        assertThat(options.toolEndsThinking()).isFalse();
    }

    @Test
    void aThinkingTagMayTakeADefaultToolNameWhenTheToolTagsChangeToo() {
        StreamOptions options = optionsOf("parse", "--thinking-tags", "tool", "--tool-tags", "call");
        assertThat(options.thinkingTags()).containsExactly("tool");
        assertThat(options.toolTags()).containsExactly("call");
    }

    private static StreamOptions optionsOf(String... args) {
        CommandLine commandLine = BellowsCommand.commandLine(
                new ByteArrayInputStream(new byte[0]), System.out, System.err, false);
        CommandLine.ParseResult result = commandLine.parseArgs(args);
        ParseCommand parse = result.subcommand().commandSpec().commandLine().getCommand();
        return parse.streamOptions();
    }

    @Test
    void helpDescribesInputOutputAndExitStatus() {
        Cli.Run run = Cli.run("", "parse", "--help");
        assertThat(run.status()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).startsWith("Usage: bellows parse")
                .contains("--thinking-tags", "--tool-tags", "--thinking-open", "--tool-ends-thinking", "--batch", "Blank lines",
                        "Exit status", "2   a bad option");
    }

    @Test
    void rootHelpListsParse() {
        Cli.Run run = Cli.run("", "--help");
        assertThat(run.status()).isZero();
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).startsWith("Usage: bellows").contains("parse", "--version");
    }

    @Test
    void versionIsTheProjectVersion() {
        for (String[] args : new String[][] {{"--version"}, {"-V"}, {"parse", "--version"}}) {
            Cli.Run run = Cli.run("", args);
            assertThat(run.status()).isZero();
            assertThat(run.err()).isEmpty();
            assertThat(run.out()).matches("bellows \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?" + System.lineSeparator());
        }
    }

    @Test
    void noCommandIsAUsageError() {
        assertOneErrorLine(Cli.run("", new String[0]), "bellows: Missing required subcommand (see 'bellows --help')");
    }

    @Test
    void anUnexpectedExceptionIsOneLineAndStatusOne() {
        Cli.Run run = runFailing(false);
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("bellows: internal error: java.lang.IllegalStateException: boom"
                + System.lineSeparator());
    }

    @Test
    void withDebugTheStackTraceFollows() {
        Cli.Run run = runFailing(true);
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).startsWith("bellows: internal error: java.lang.IllegalStateException: boom"
                + System.lineSeparator()).contains("\tat dev.bellows.cli.ParseCommandTest$Failing.run");
    }

    @CommandLine.Command(name = "fail")
    static final class Failing implements Runnable {
        @Override
        public void run() {
            throw new IllegalStateException("boom");
        }
    }

    private static Cli.Run runFailing(boolean debug) {
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        CommandLine commandLine = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, debug);
        commandLine.addSubcommand(new Failing());
        int status = commandLine.execute("fail");
        return new Cli.Run(status, out.toString(), err.toString());
    }
}
