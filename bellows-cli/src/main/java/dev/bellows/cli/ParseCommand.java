package dev.bellows.cli;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.event.EventJson;
import dev.bellows.event.StreamEvent;
import dev.bellows.stream.Dialect;
import dev.bellows.stream.ModelProfile;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import dev.bellows.stream.ToolSchemas;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows parse}: the stream processor on JSON Lines, as the last section of
 * docs/stream-format.md describes. Each chunk's events are written (and flushed) before the
 * next input line is read.
 */
@Command(name = "parse",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Runs the stream parser over JSON Lines on standard input.",
                "",
                "Input: one chunk per line, {\"type\": \"message\"|\"thinking\", \"content\": \"...\"};"
                        + " type is optional (default message). Blank lines are skipped and are not chunks.",
                "Output: one event per line, with \"type\" and \"chunk\" (the 0-based index of the chunk"
                        + " during which it was emitted), written as soon as each chunk is parsed.",
                "With --batch, each input line is a whole stream, {\"chunks\": [...]}, and each output"
                        + " line is the JSON array of that stream's events."},
        // Written out: picocli would break the synopsis inside "NAME[,NAME...]".
        customSynopsis = {
                "bellows parse [-hV] [--batch] [--thinking-open] [--tool-ends-thinking]",
                "                     [--thinking-tags=NAME[,NAME...]]...",
                "                     [--tool-tags=NAME[,NAME...]]...",
                "                     [--dialect=NAME|auto] [--model=NAME] [--tools=FILE]"},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:success",
                "1:internal error, or standard input/output failed",
                "2:a bad option, or a bad input line (standard error names its line number;"
                        + " the events of the lines before it are already written)"})
final class ParseCommand implements Callable<Integer> {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Option(names = "--thinking-tags", split = ",", paramLabel = "NAME",
            description = "Tag names of thinking blocks, comma-separated (default: thinking,think).")
    List<String> thinkingTags;

    @Option(names = "--tool-tags", split = ",", paramLabel = "NAME",
            description = "Tag names of tool calls, comma-separated (default: tool,tool_call).")
    List<String> toolTags;

    @Option(names = "--thinking-open",
            description = "The stream starts inside a thinking block named 'think'"
                    + " (output that only writes the closing tag, as DeepSeek-R1 does).")
    boolean thinkingOpen;

    @Option(names = "--tool-ends-thinking",
            description = "A tool open tag inside a thinking block ends the thinking and starts the call"
                    + " (Qwen3-style models call tools without closing their reasoning).")
    boolean toolEndsThinking;

    @Option(names = "--argument-events",
            description = "Report each argument of a tool call as soon as its value is complete"
                    + " (tool_call_argument events: a write's path while its content still streams).")
    boolean argumentEvents;

    @Option(names = "--dialect", paramLabel = "NAME|auto",
            description = "The model's format of thinking and tool calls: bellows (default; the tags above), hermes,"
                    + " qwen3_coder, llama3_json, mistral, deepseek_v3, kimi_k2, glm45, minimax_m2, harmony,"
                    + " kimi_think; or auto, which picks it (and the options the model needs) from --model.")
    String dialect;

    @Option(names = "--model", paramLabel = "NAME",
            description = "The model's name, for --dialect auto (e.g. Qwen/Qwen3-8B).")
    String model;

    @Option(names = "--tools", paramLabel = "FILE",
            description = "A JSON list of tools, [{\"name\": ..., \"parameters\": {JSON Schema}}] (or OpenAI's"
                    + " {\"type\": \"function\", \"function\": {...}}): types the text parameters of"
                    + " qwen3_coder, glm45 and minimax_m2 calls.")
    java.nio.file.Path tools;

    @Option(names = "--batch",
            description = "Each input line is one whole stream; each output line is its array of events.")
    boolean batch;

    @Override
    public Integer call() {
        StreamOptions options = streamOptions();
        ChunkLineReader input = new ChunkLineReader(root.stdin);
        Writer output = new BufferedWriter(new OutputStreamWriter(root.stdout, StandardCharsets.UTF_8));
        try {
            if (batch) {
                parseStreams(input, options, output);
            } else {
                parseChunks(input, options, output);
            }
            return 0;
        } catch (ChunkLineReader.BadLineException e) {
            return fail(2, "line " + e.line() + ": " + e.getMessage());
        } catch (UncheckedIOException e) {
            if (ClosedPipes.isClosedPipe(e.getCause())) {
                return 1; // the reader went away (| head): nothing to say
            }
            return fail(1, "cannot write to standard output: " + e.getCause().getMessage());
        } catch (IOException e) {
            return fail(1, "cannot read standard input: " + e.getMessage());
        }
    }

    /** Streaming: every chunk goes through one processor; its events are out before the next line is read. */
    private static void parseChunks(ChunkLineReader input, StreamOptions options, Writer output)
            throws IOException, ChunkLineReader.BadLineException {
        StreamProcessor processor = new StreamProcessor(options, event -> writeLine(output, EventJson.toJson(event)));
        StreamChunk chunk;
        while ((chunk = input.nextChunk()) != null) {
            processor.accept(chunk);
            flush(output);
        }
        processor.finish();
        flush(output);
    }

    /** Batch: each line is a stream of its own; each output line is the array of its events. */
    private static void parseStreams(ChunkLineReader input, StreamOptions options, Writer output)
            throws IOException, ChunkLineReader.BadLineException {
        List<StreamChunk> chunks;
        while ((chunks = input.nextStream()) != null) {
            ArrayNode events = JsonNodeFactory.instance.arrayNode();
            for (StreamEvent event : StreamProcessor.parse(chunks, options)) {
                events.add(EventJson.toJson(event));
            }
            writeLine(output, events);
            flush(output);
        }
    }

    private static void writeLine(Writer output, JsonNode json) {
        try {
            output.write(Shown.controls(MAPPER.writeValueAsString(json))); // C1 and DEL escaped as C0 already are
            output.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void flush(Writer output) {
        try {
            output.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private int fail(int status, String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(UsageErrors.redact(message, spec)));
        root.stderr.flush();
        return status;
    }

    /**
     * The options the flags ask for.
     *
     * @throws ParameterException naming the flag, for a tag name {@link StreamOptions} rejects
     */
    StreamOptions streamOptions() {
        StreamOptions.Builder builder = StreamOptions.builder();
        Dialect chosen = chooseDialect(builder);
        if (thinkingOpen) {
            builder.thinkingOpen(true);
        }
        if (toolEndsThinking) {
            builder.toolEndsThinking(true);
        }
        if (argumentEvents) {
            builder.argumentEvents(true);
        }
        if (tools != null) {
            builder.toolSchemas(readTools());
        }
        if (!chosen.usesTags() && (thinkingTags != null || toolTags != null)) {
            throw new ParameterException(spec.commandLine(), (thinkingTags != null ? "--thinking-tags" : "--tool-tags")
                    + ": tag names apply to --dialect bellows only; the " + chosen.name()
                    + " dialect has its own delimiters");
        }
        List<String> given = new ArrayList<>();
        if (thinkingTags != null) {
            builder.thinkingTags(tagNames("--thinking-tags", thinkingTags, true));
            given.add("--thinking-tags");
        }
        if (toolTags != null) {
            builder.toolTags(tagNames("--tool-tags", toolTags, false));
            given.add("--tool-tags");
        }
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            // Each name is valid on its own (checked above): a name is in both sets.
            throw new ParameterException(spec.commandLine(), String.join(", ", given) + ": " + e.getMessage());
        }
    }

    /** The dialect of --dialect (a name, or auto with --model); auto also sets the model's options. */
    private Dialect chooseDialect(StreamOptions.Builder builder) {
        if (dialect == null) {
            if (model != null) {
                throw new ParameterException(spec.commandLine(), "--model is only used with --dialect auto");
            }
            return Dialect.BELLOWS;
        }
        if (dialect.strip().equalsIgnoreCase("auto")) {
            if (model == null || model.isBlank()) {
                throw new ParameterException(spec.commandLine(),
                        "--dialect auto: give the model's name with --model NAME, e.g. --model Qwen/Qwen3-8B");
            }
            ModelProfile profile = ModelProfile.forModel(model.strip());
            profile.applyTo(builder);
            return profile.dialect();
        }
        if (model != null) {
            throw new ParameterException(spec.commandLine(), "--model is only used with --dialect auto");
        }
        try {
            Dialect named = Dialect.named(dialect.strip());
            builder.dialect(named);
            return named;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--dialect: " + e.getMessage() + ", or auto");
        }
    }

    private ToolSchemas readTools() {
        JsonNode list;
        try {
            list = MAPPER.readTree(java.nio.file.Files.readString(tools));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), "--tools: no such file: " + tools);
        } catch (IOException | JacksonException e) {
            throw new ParameterException(spec.commandLine(), "--tools: " + tools + " is not a readable JSON file: "
                    + BellowsCommand.oneLine(e.getMessage()));
        }
        try {
            return ToolSchemas.fromJson(list);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--tools: " + e.getMessage());
        }
    }

    /** The names of one flag, trimmed, each checked on its own so an error names the right flag. */
    private List<String> tagNames(String flag, List<String> values, boolean thinking) {
        String example = flag + " " + String.join(",",
                thinking ? StreamOptions.DEFAULT_THINKING_TAGS : StreamOptions.DEFAULT_TOOL_TAGS);
        if (values.isEmpty()) {
            throw new ParameterException(spec.commandLine(), flag + ": give at least one tag name, e.g. " + example);
        }
        List<String> names = new ArrayList<>(values.size());
        for (String value : values) {
            String name = value.strip();
            if (name.isEmpty()) {
                throw new ParameterException(spec.commandLine(),
                        flag + ": empty tag name; give names separated by commas, e.g. " + example);
            }
            try {
                StreamOptions.checkTagName((thinking ? "thinking" : "tool") + " tag name", name);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), flag + ": " + e.getMessage());
            }
            names.add(name);
        }
        return names;
    }
}
