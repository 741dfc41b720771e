package dev.bellows.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.http.SseConnection;
import dev.bellows.http.SseEvent;
import dev.bellows.http.SseParser;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The stream's one decoder reads events without a tree, and must mean what a reader of each
 * event as a whole Jackson tree means ({@link TreeEventReader}, the reference): the same
 * frames, finish reason, usage and failures, for the API's shapes and odd ones (fields of
 * other kinds, duplicates, nulls, floats and huge numbers, invalid UTF-8, cut and malformed
 * JSON, trailing text, a type only in the SSE event name).
 */
class EventDecoderProperties {

    private static final URI ENDPOINT = URI.create("http://127.0.0.1/v1/messages");

    private static final class Events implements SseConnection {
        private final ArrayDeque<SseEvent> events = new ArrayDeque<>();

        Events(byte[] stream) {
            SseParser parser = new SseParser(events::add);
            parser.feed(stream, 0, stream.length);
            parser.finish();
        }

        @Override
        public SseEvent next() {
            return events.poll();
        }

        @Override
        public int statusCode() {
            return 200;
        }

        @Override
        public Map<String, List<String>> headers() {
            return Map.of();
        }

        @Override
        public void cancel() {
        }

        @Override
        public void close() {
        }
    }

    private static List<String> outcome(dev.bellows.provider.ChatStream stream) {
        List<String> seen = new ArrayList<>();
        try {
            for (StreamChunk chunk = stream.next(); chunk != null; chunk = stream.next()) {
                seen.add(chunk.toString());
            }
        } catch (ProviderException e) {
            seen.add("failure " + e.kind() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            seen.add("exception " + e);               // never expected, but must agree too
        }
        seen.add("finish " + stream.finishReason());
        seen.add("usage " + stream.usage());
        return seen;
    }

    private static byte[] stream(List<Tuple.Tuple2<String, byte[]>> events) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Tuple.Tuple2<String, byte[]> event : events) {
            out.writeBytes(("event: " + event.get1() + "\ndata: ").getBytes(StandardCharsets.UTF_8));
            out.writeBytes(event.get2());
            out.writeBytes("\n\n".getBytes(StandardCharsets.US_ASCII));
        }
        return out.toByteArray();
    }

    @Property(tries = 2000)
    void theDecoderGivesWhatTheTreeGives(@ForAll("events") List<Tuple.Tuple2<String, byte[]>> events) {
        byte[] bytes = stream(events);
        assertThat(outcome(new AnthropicStream(new Events(bytes), ENDPOINT, null)))
                .isEqualTo(outcome(new TreeEventReader(new Events(bytes), ENDPOINT)));
    }

    /** The cursor's own share: events it reads whole, without the parser, mean what the tree means. */
    @Property(tries = 2000)
    void theCursorReadsUsualEventsAsTheTreeDoes(@ForAll("usualEvents") List<Tuple.Tuple2<String, byte[]>> events) {
        byte[] bytes = stream(events);
        assertThat(outcome(new AnthropicStream(new Events(bytes), ENDPOINT, null)))
                .isEqualTo(outcome(new TreeEventReader(new Events(bytes), ENDPOINT)));
    }

    /** Text after an event's object that leaves a parser inside a value does not reach the next event (jqwik found it). */
    @Test
    void textAfterAnObjectDoesNotSpoilTheNextEvent() {
        for (String tail : List.of("\"", "\"x}", "[", "1", " {")) {
            byte[] bytes = stream(List.of(Tuple.of("message_start", ("{}" + tail).getBytes(StandardCharsets.UTF_8)),
                    Tuple.of("message_stop", "{\"type\":\"message_stop\"}".getBytes(StandardCharsets.UTF_8))));
            assertThat(outcome(new AnthropicStream(new Events(bytes), ENDPOINT, null))).as("after {}%s", tail)
                    .isEqualTo(outcome(new TreeEventReader(new Events(bytes), ENDPOINT)))
                    .noneMatch(line -> line.startsWith("failure"));
        }
    }

    @Test
    void theDocumentedStreamsGiveTypedFrames() {
        byte[] thinking = DocsStreams.THINKING.getBytes(StandardCharsets.UTF_8);
        List<String> seen = outcome(new AnthropicStream(new Events(thinking), ENDPOINT, null));
        assertThat(seen).isEqualTo(outcome(new TreeEventReader(new Events(thinking), ENDPOINT)));
        assertThat(seen.getFirst()).isEqualTo("ResponseInfo[id=msg_01, model=claude-sonnet-4-5]".replace("msg_01",
                "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY"));
        assertThat(seen).anyMatch(s -> s.startsWith("Reasoning[text=Let me solve this step by step"))
                .anyMatch(s -> s.startsWith("ThinkingSignature[signature=EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"));
        byte[] basic = DocsStreams.BASIC.getBytes(StandardCharsets.UTF_8);
        assertThat(outcome(new AnthropicStream(new Events(basic), ENDPOINT, null))).containsExactly(
                "ResponseInfo[id=msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY, model=claude-sonnet-4-5]",
                "Text[text=Hello]", "Text[text=!]", "Usage[inputTokens=25, outputTokens=15]",
                "finish Optional[end_turn]", "usage Optional[TokenUsage[inputTokens=25, outputTokens=15]]");
    }

    /** The documented streams' events (text, thinking, signatures, usage) are read by the cursor, not left to the parser. */
    @Test
    void theDocumentedEventsAreReadByTheCursor() throws Exception {
        EventDecoder decoder = new EventDecoder(new tools.jackson.databind.ObjectMapper());
        dev.bellows.http.internal.JsonCursor cursor = new dev.bellows.http.internal.JsonCursor();
        int read = 0;
        for (String docs : List.of(DocsStreams.BASIC, DocsStreams.THINKING)) {
            Events events = new Events(docs.getBytes(StandardCharsets.UTF_8));
            for (SseEvent event = events.next(); event != null; event = events.next()) {
                byte[] bytes = utf8(event.data());
                cursor.reset(bytes, bytes.length);
                assertThat(decoder.readUsual(cursor)).as(event.data()).isTrue();   // an unusual event would throw
                cursor.finish();
                read++;
            }
        }
        assertThat(read).isGreaterThan(10);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<Tuple.Tuple2<String, byte[]>>> events() {
        return events(false);
    }

    /** Events of the kinds the API sends (every value of its usual kind, well-formed), read by the cursor. */
    @Provide
    Arbitrary<List<Tuple.Tuple2<String, byte[]>>> usualEvents() {
        return events(true);
    }

    private Arbitrary<List<Tuple.Tuple2<String, byte[]>>> events(boolean usual) {
        Arbitrary<String> names = Arbitraries.of("message_start", "content_block_start", "content_block_delta",
                "content_block_stop", "message_delta", "ping", "error", "future_event");
        Arbitrary<Mutation> mutation = usual ? Arbitraries.just(json -> json) : mutation();
        Arbitrary<Tuple.Tuple2<String, byte[]>> event = Combinators.combine(names, root(usual), mutation)
                .as((name, json, mutate) -> Tuple.of(name, mutate.apply(utf8(json))));
        return event.list().ofMinSize(1).ofMaxSize(6).map(list -> {
            List<Tuple.Tuple2<String, byte[]>> all = new ArrayList<>(list);
            all.add(Tuple.of("message_stop", utf8("{\"type\":\"message_stop\"}")));
            return all;
        });
    }

    private interface Mutation {
        byte[] apply(byte[] json);
    }

    private Arbitrary<Mutation> mutation() {
        return Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.just(json -> json)),
                Tuple.of(2, Arbitraries.doubles().between(0, 1).map(at -> json -> Arrays.copyOf(json, (int) (json.length * at)))),
                Tuple.of(2, Arbitraries.of("  ", " x", "}", " {\"a\":").map(tail -> json -> {
                    byte[] end = utf8(tail);
                    byte[] all = Arrays.copyOf(json, json.length + end.length);
                    System.arraycopy(end, 0, all, json.length, end.length);
                    return all;
                })),
                Tuple.of(2, Combinators.combine(Arbitraries.doubles().between(0, 1),
                        Arbitraries.of((byte) 0xFF, (byte) 0xC3, (byte) '"', (byte) ',')).as((at, b) -> json -> {
                            byte[] all = Arrays.copyOf(json, json.length + 1);
                            int i = (int) (json.length * at);
                            System.arraycopy(json, i, all, i + 1, json.length - i);
                            all[i] = b;
                            return all;
                        })));
    }

    private Arbitrary<String> root(boolean usual) {
        Arbitrary<String> field = Arbitraries.oneOf(
                Arbitraries.of("message_start", "content_block_start", "content_block_delta", "content_block_stop",
                        "message_delta", "message_stop", "ping", "error", "other").map(t -> "\"type\":\"" + t + "\""),
                Arbitraries.of("\"type\":null", "\"type\":3"),
                numberish(usual).map(n -> "\"index\":" + n),
                block(usual).map(b -> "\"content_block\":" + b),
                delta(usual).map(d -> "\"delta\":" + d),
                usage(usual).map(u -> "\"message\":{\"id\":\"msg\",\"usage\":" + u + ",\"stop_reason\":null}"),
                Combinators.combine(text(usual), text(usual), usage(usual)).as((id, model, u) -> "\"message\":{\"id\":" + id
                        + ",\"model\":" + model + ",\"usage\":" + u + "}"),
                usage(usual).map(u -> "\"usage\":" + u),
                text(usual).map(t -> "\"error\":{\"type\":" + t + ",\"message\":\"overloaded\"}"));
        return field.list().ofMaxSize(5).map(fields -> "{" + String.join(",", fields) + "}");
    }

    private Arbitrary<String> block(boolean usual) {
        Arbitrary<String> field = Arbitraries.oneOf(
                Arbitraries.of("text", "thinking", "redacted_thinking", "tool_use", "server_tool_use")
                        .map(t -> "\"type\":\"" + t + "\""),
                Arbitraries.of("text", "thinking", "data", "id", "name", "type")
                        .flatMap(name -> text(usual).map(t -> "\"" + name + "\":" + t)),
                Arbitraries.just("\"input\":{}"));
        return Arbitraries.oneOf(field.list().ofMaxSize(4).map(fields -> "{" + String.join(",", fields) + "}"),
                Arbitraries.of("null", "\"x\""));
    }

    private Arbitrary<String> delta(boolean usual) {
        Arbitrary<String> field = Arbitraries.oneOf(
                Arbitraries.of("text_delta", "thinking_delta", "signature_delta", "input_json_delta", "citations_delta")
                        .map(t -> "\"type\":\"" + t + "\""),
                Arbitraries.of("text", "thinking", "signature", "partial_json", "stop_reason", "stop_sequence")
                        .flatMap(name -> text(usual).map(t -> "\"" + name + "\":" + t)));
        return Arbitraries.oneOf(field.list().ofMaxSize(4).map(fields -> "{" + String.join(",", fields) + "}"),
                Arbitraries.of("null", "[]"));
    }

    private Arbitrary<String> usage(boolean usual) {
        Arbitrary<String> field = Arbitraries.of("input_tokens", "output_tokens", "cache_read_input_tokens")
                .flatMap(name -> numberish(usual).map(n -> "\"" + name + "\":" + n));
        return Arbitraries.oneOf(field.list().ofMaxSize(3).map(fields -> "{" + String.join(",", fields) + "}"),
                Arbitraries.of("null", "5"));
    }

    private Arbitrary<String> numberish(boolean usual) {
        if (usual) {
            return Arbitraries.of("0", "1", "2", "-1", "25", "-0", "2147483647", "123456789012345678");
        }
        return Arbitraries.of("0", "1", "2", "-1", "25", "3000000000", "99999999999999999999", "1.5", "\"3\"", "null",
                "true", "{}");
    }

    private Arbitrary<String> text(boolean usual) {
        if (usual) {
            return Arbitraries.of("", "a", "Hé", "😀", "\\u00e9", "\\n", "{\\\"a\\\": 1}", "end_turn", "tool_use",
                    "sig", "text_delta", "\\ud800", "\\u00C9t\\/\\t", "overloaded_error").map(t -> "\"" + t + "\"");
        }
        return Arbitraries.oneOf(
                Arbitraries.of("", "a", "Hé", "😀", "\\u00e9", "\\n", "{\\\"a\\\": 1}", "end_turn", "tool_use", "sig")
                        .map(t -> "\"" + t + "\""),
                Arbitraries.of("null", "1", "{}", "false"));
    }
}
