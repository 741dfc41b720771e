package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.event.StreamEvent;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Llama 3's bare JSON calls (docs/dialects.md, llama3_json), cut at random: an object that starts
 * {@code {"name": "A TOOL", "parameters"} is a call from there on, so its start and name come in
 * the chunk that completes that key, its content and arguments stream, and if it then breaks it
 * is a malformed call (a {@code tool_call_end} with an error, as the tag form reports one), the
 * rest being message text; an object that does not start so keeps the held rule and is text
 * when it breaks. The events are the same whatever the cuts.
 */
class LlamaBareCallProperties {

    private static final String TOOL = "get_weather";

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 100_000).list().ofMaxSize(20);
    }

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.strings().withCharRange('a', 'z').withChars(' ', '{', '}', '[', ']', ':', ';', ',')
                .ofMaxLength(30);
    }

    @Provide
    Arbitrary<String> before() {
        return Arbitraries.of("", "Let me check. ", "<|python_tag|>", "Sure.\n<|python_tag|>");
    }

    private static StreamOptions options(boolean catalog) {
        StreamOptions.Builder builder = StreamOptions.builder().dialect(Dialect.named("llama3_json"));
        if (catalog) {
            builder.toolSchemas(ToolSchemas.of(Map.of(TOOL, JsonNodeFactory.instance.objectNode(),
                    "get_time", JsonNodeFactory.instance.objectNode())));
        }
        return builder.build();
    }

    /** The events after checking that the cuts (and argument-events) change nothing but chunk indexes. */
    private static List<StreamEvent> run(StreamOptions options, List<StreamChunk> chunks, String text) {
        String whole = StreamTesting.renderLines(StreamTesting.mergeAcrossChunks(
                StreamTesting.run(options, List.of(StreamChunk.message(text)))));
        List<StreamEvent> events = StreamTesting.run(options, chunks);
        assertThat(StreamTesting.renderLines(StreamTesting.mergeAcrossChunks(events))).as("cut as %s", chunks)
                .isEqualTo(whole);
        StreamTesting.assertArgumentEventsOnlyAdd(options, chunks);
        return events;
    }

    private static <T extends StreamEvent> List<T> all(List<StreamEvent> events, Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Property(tries = 300)
    void theNameComesWithTheArgumentsKeyLongBeforeTheArgumentsEnd(@ForAll("before") String before,
            @ForAll("values") String value, @ForAll boolean arguments, @ForAll boolean catalog,
            @ForAll("cuts") List<Integer> cuts) {
        String key = arguments ? "arguments" : "parameters";
        String text = before + "{\"name\": \"" + TOOL + "\", \"" + key + "\": {\"city\": \"" + value + "\"}}";
        int keyQuote = text.indexOf("\"" + key + "\"") + key.length() + 1;
        List<StreamChunk> chunks = DialectTesting.cut(text, cuts);
        List<StreamEvent> events = run(options(catalog).withArgumentEvents(true), chunks, text);

        int completing = DialectTesting.chunkHolding(chunks, keyQuote);
        assertThat(all(events, StreamEvent.ToolCallStart.class)).extracting(StreamEvent::chunk).containsExactly(completing);
        assertThat(all(events, StreamEvent.ToolCallName.class)).extracting(n -> n.toolName() + "@" + n.chunk())
                .containsExactly(TOOL + "@" + completing);
        assertThat(all(events, StreamEvent.ToolCallArgument.class)).extracting(a -> a.name() + "@" + a.chunk())
                .containsExactly("city@" + DialectTesting.chunkHolding(chunks, text.length() - 3));
        assertThat(all(events, StreamEvent.ToolCallEnd.class)).extracting(StreamEvent::chunk)
                .containsExactly(chunks.size() - 1);
        assertThat(DialectTesting.calls(StreamTesting.complete(events)))
                .containsExactly(TOOL + " {\"city\":\"" + value + "\"}");
    }

    @Property(tries = 300)
    void anObjectThatBreaksAfterItsNameIsAMalformedCall(@ForAll("before") String before, @ForAll("values") String value,
            @ForAll boolean trailingComma, @ForAll boolean catalog, @ForAll("cuts") List<Integer> cuts) {
        String call = "{\"name\": \"" + TOOL + "\", \"parameters\": {\"city\": \"" + value + "\""
                + (trailingComma ? ",}}" : "\nThat is all.");
        String text = before + call;
        int breaking = trailingComma ? text.length() - 2 : text.indexOf("That is all.");
        List<StreamChunk> chunks = DialectTesting.cut(text, cuts);
        List<StreamEvent> events = run(options(catalog), chunks, text);

        assertThat(all(events, StreamEvent.ToolCallName.class)).extracting(n -> n.toolName() + "@" + n.chunk())
                .containsExactly(TOOL + "@" + DialectTesting.chunkHolding(chunks, text.indexOf("\"parameters\"") + 11));
        StreamEvent.ToolCallEnd end = all(events, StreamEvent.ToolCallEnd.class).getFirst();
        assertThat(end.chunk()).as("reported in the chunk of the character that broke it")
                .isEqualTo(DialectTesting.chunkHolding(chunks, breaking));
        ToolCallError error = StreamTesting.onlyToolCallError(events);
        assertThat(error.content()).isEqualTo(text.substring(text.indexOf('{'), breaking).strip());
        assertThat(error.error()).startsWith("the tool call broke off before the end of its JSON object (the text from"
                + " there on was read as message text): tool call JSON is invalid at line ");
        String message = StreamTesting.complete(events).message();
        assertThat(message).as("what follows the break is message text").endsWith(trailingComma ? "}}" : "That is all.");
    }

    @Property(tries = 300)
    void anObjectThatDoesNotStartAsACallStaysTextWhenItBreaks(@ForAll("values") String value,
            @ForAll("notACall") String start, @ForAll("cuts") List<Integer> cuts) {
        String text = start + "{\"city\": \"" + value + "\"\nThat is all.";
        List<StreamChunk> chunks = DialectTesting.cut(text, cuts);
        List<StreamEvent> events = run(options(true), chunks, text);

        assertThat(all(events, StreamEvent.ToolCallStart.class)).isEmpty();
        assertThat(StreamTesting.complete(events).message()).isEqualTo(text.strip());
    }

    @Provide
    Arbitrary<String> notACall() {
        return Arbitraries.of(
                "{\"query\": \"weather\", \"name\": \"" + TOOL + "\", \"parameters\": ",   // name not first
                "{\"name\": \"not_offered\", \"parameters\": ",                         // not in the catalog
                "{\"name\": \"" + TOOL + "\", \"description\": \"x\", \"parameters\": ", // no arguments key next
                "{\"name\": \"\", \"parameters\": ",                                    // no name
                "{\"name\": 42, \"parameters\": ");                                     // not a string
    }

    @Property(tries = 200)
    void aCallCutOffByTheEndOfTheStreamIsNeverClosed(@ForAll("values") String value, @ForAll("cuts") List<Integer> cuts) {
        String text = "{\"name\": \"" + TOOL + "\", \"parameters\": {\"city\": \"" + value + "\"";
        List<StreamEvent> events = run(options(false), DialectTesting.cut(text, cuts), text);
        ToolCallError error = StreamTesting.onlyToolCallError(events);
        assertThat(error.content()).isEqualTo(text);
        assertThat(error.error()).startsWith("the tool call was never closed: the answer ended before the end of its"
                + " JSON object");
        assertThat(StreamTesting.complete(events).message()).isEmpty();
    }

    /**
     * A 1 MiB argument in 4 KiB chunks: the call starts and names its tool in the first chunk,
     * the small argument before the big one comes there too, and the content streams in every
     * chunk after it, not in one piece at the end.
     */
    @Example
    void aOneMegabyteArgumentDoesNotDelayTheName() {
        String big = "x".repeat(1 << 20);
        String text = "{\"name\": \"write_file\", \"parameters\": {\"path\": \"notes.txt\", \"content\": \"" + big + "\"}}";
        List<StreamChunk> chunks = DialectTesting.cut(text, 4096);
        List<StreamEvent> events = StreamProcessor.parse(chunks, options(false).withArgumentEvents(true));

        assertThat(chunks).hasSizeGreaterThan(256);
        assertThat(all(events, StreamEvent.ToolCallStart.class)).extracting(StreamEvent::chunk).containsExactly(0);
        assertThat(all(events, StreamEvent.ToolCallName.class)).extracting(n -> n.toolName() + "@" + n.chunk())
                .containsExactly("write_file@0");
        assertThat(all(events, StreamEvent.ToolCallArgument.class)).extracting(a -> a.name() + "@" + a.chunk())
                .containsExactly("path@0", "content@" + (chunks.size() - 1));
        List<Integer> contentChunks = new ArrayList<>();
        all(events, StreamEvent.ToolCallContent.class).forEach(c -> contentChunks.add(c.chunk()));
        assertThat(contentChunks).as("the call's content streams with every chunk").hasSize(chunks.size());
        assertThat(all(events, StreamEvent.ToolCallEnd.class)).extracting(StreamEvent::chunk)
                .containsExactly(chunks.size() - 1);
        assertThat(DialectTesting.calls(StreamTesting.complete(events)).getFirst())
                .startsWith("write_file {\"path\":\"notes.txt\",\"content\":\"xxx");
    }
}
