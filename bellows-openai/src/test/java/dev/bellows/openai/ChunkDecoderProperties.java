package dev.bellows.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.http.SseConnection;
import dev.bellows.http.SseEvent;
import dev.bellows.http.SseParser;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The stream's one decoder reads events without a tree, and must mean what a reader of each
 * event as a whole Jackson tree means ({@link TreeChunkReader}, the reference): the same
 * events must give the same frames, finish reason, usage and errors, for the shapes servers
 * send and for odd ones (duplicate names, numbers as text, floats and huge numbers, nulls,
 * objects as arguments, invalid UTF-8, truncated and malformed JSON, trailing garbage).
 */
class ChunkDecoderProperties {

    /** An SSE connection over events parsed from bytes, as the HTTP client gives them. */
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

    private static final String WHERE = "http://127.0.0.1/v1/chat/completions";

    /** Everything a stream tells its consumer, in order: the decoder's, or the tree reference's. */
    private static List<String> outcome(byte[] stream, boolean reference) {
        Redactor redactor = new Redactor(null, List.of());
        ChatStream chat = reference ? new TreeChunkReader(new Events(stream), WHERE, redactor)
                : new OpenAiChatStream(new Events(stream), WHERE, redactor);
        List<String> seen = new ArrayList<>();
        try {
            for (StreamChunk chunk = chat.next(); chunk != null; chunk = chat.next()) {
                seen.add(chunk.toString());
            }
        } catch (ProviderException e) {
            seen.add("failure " + e.kind() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            seen.add("exception " + e);               // never expected, but must agree too
        }
        seen.add("finish " + chat.finishReason());
        seen.add("usage " + chat.usage());
        return seen;
    }

    private static byte[] stream(List<byte[]> datas) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] data : datas) {
            out.writeBytes("data: ".getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(data);
            out.writeBytes("\n\n".getBytes(StandardCharsets.US_ASCII));
        }
        return out.toByteArray();
    }

    @Property(tries = 2000)
    void theDecoderGivesWhatTheTreeGives(@ForAll("events") List<byte[]> events) {
        byte[] stream = stream(events);
        assertThat(outcome(stream, false)).isEqualTo(outcome(stream, true));
    }

    /** The cursor's own share: events it reads whole, without the parser, mean what the tree means. */
    @Property(tries = 2000)
    void theCursorReadsUsualEventsAsTheTreeDoes(@ForAll("usualEvents") List<byte[]> events) {
        byte[] stream = stream(events);
        assertThat(outcome(stream, false)).isEqualTo(outcome(stream, true));
    }

    /** Text after an event's object that leaves a parser inside a value does not reach the next event. */
    @Test
    void textAfterAnObjectDoesNotSpoilTheNextEvent() {
        for (String tail : List.of("\"", "\"x}", "[", "1", " {")) {
            List<byte[]> events = List.of(("{}" + tail).getBytes(StandardCharsets.UTF_8),
                    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}".getBytes(StandardCharsets.UTF_8));
            byte[] bytes = stream(events);
            List<String> seen = outcome(bytes, false);
            assertThat(seen).as("after {}%s", tail).isEqualTo(outcome(bytes, true))
                    .contains(StreamChunk.message("Hi").toString());
        }
    }

    @Property(tries = 3000)
    void wellFormedUtf8AgreesWithTheJdksStrictDecoder(@ForAll("utf8ish") byte[] bytes) {
        byte[] stream = stream(List.of(bytes));
        SseEvent event = new Events(stream).next();
        boolean strict;
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes));
            strict = true;
        } catch (java.nio.charset.CharacterCodingException e) {
            strict = false;
        }
        assertThat(dev.bellows.http.internal.JsonEvents.wellFormedUtf8(event, 0, event.dataLength())).isEqualTo(strict);
    }

    @Provide
    Arbitrary<byte[]> utf8ish() {
        Arbitrary<byte[]> piece = Arbitraries.oneOf(
                Arbitraries.of("a", "é", "€", "中", "😀", "\uFFFF", "\uD7FF", "\uE000", "\uDBFF\uDFFF").map(t -> utf8(t)),
                Arbitraries.bytes().filter(b -> b != '\n' && b != '\r').map(b -> new byte[] {b}));
        return piece.list().ofMaxSize(6).map(pieces -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            pieces.forEach(out::writeBytes);
            return out.toByteArray();
        });
    }

    @Test
    void countsBeyondALongAreAbsentAndSumsStopAtTheLargest() {
        String huge = "99999999999999999999";
        String max = String.valueOf(Long.MAX_VALUE);
        for (boolean reference : List.of(false, true)) {
            assertThat(outcome(stream(List.of(utf8("{\"usage\":{\"prompt_tokens\":" + huge + ",\"completion_tokens\":2},"
                    + "\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}"))), reference))
                    .contains("usage Optional[TokenUsage[inputTokens=0, outputTokens=2]]");
            assertThat(outcome(stream(List.of(utf8("{\"timings\":{\"prompt_n\":" + max + ",\"cache_n\":" + max
                    + ",\"predicted_n\":1},\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}"))), reference))
                    .contains("usage Optional[TokenUsage[inputTokens=" + max + ", outputTokens=1]]");
        }
    }

    @Test
    void theUsualShapeGivesEveryPieceAsATypedFrame() {
        byte[] stream = stream(List.of(
                utf8("{\"id\":\"c\",\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hé \\u00e9\"},\"finish_reason\":null}]}"),
                utf8("{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"add\",\"arguments\":\"\"}}]}}]}"),
                utf8("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\": 2}\"}}]}}]}"),
                utf8("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":3}}"),
                utf8("[DONE]")));
        assertThat(outcome(stream, false)).containsExactly(
                "ResponseInfo[id=c, model=gpt-4o-mini-2024-07-18]",
                "Text[text=Hé é]",
                "ToolCallDelta[index=0, id=call_1, name=add, arguments=]",
                "ToolCallDelta[index=0, id=null, name=null, arguments={\"a\": 2}]",
                "Usage[inputTokens=10, outputTokens=3]",
                "finish Optional[tool_calls]",
                "usage Optional[TokenUsage[inputTokens=10, outputTokens=3]]");
    }

    /**
     * The events servers send are read by the cursor, not left to the parser (which would read
     * them right, but slower): OpenAI's, vLLM's, Ollama's, llama.cpp's, the benchmarks' mock's.
     */
    @Test
    void theUsualEventsAreReadByTheCursor() throws Exception {
        ChunkDecoder decoder = new ChunkDecoder(new tools.jackson.databind.ObjectMapper());
        dev.bellows.http.internal.JsonCursor cursor = new dev.bellows.http.internal.JsonCursor();
        for (String event : List.of(
                "{\"id\":\"chatcmpl-B9\",\"object\":\"chat.completion.chunk\",\"created\":1727384000,\"model\":\"gpt-4o-mini\","
                        + "\"service_tier\":\"default\",\"system_fingerprint\":\"fp_44709d6fcb\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}],"
                        + "\"usage\":null}",
                "{\"id\":\"chatcmpl-B9\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_DdmO\","
                        + "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}",
                "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"loc\"}}]}}]}",
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":19,\"completion_tokens\":10,\"total_tokens\":29,"
                        + "\"prompt_tokens_details\":{\"cached_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":0}}}",
                "{\"id\":\"chatcmpl-3a\",\"object\":\"chat.completion.chunk\",\"created\":1727384000,\"model\":\"Qwen/Qwen3-8B\","
                        + "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Let me think \\u2014 \\\"carefully\\\".\\n\"},"
                        + "\"logprobs\":null,\"finish_reason\":null}]}",
                "{\"id\":\"chatcmpl-71\",\"object\":\"chat.completion.chunk\",\"created\":1727384000,\"model\":\"llama3.2\","
                        + "\"system_fingerprint\":\"fp_ollama\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
                        + "\"content\":\"Héllo 😀\"},\"finish_reason\":\"stop\"}]}",
                "{\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,\"delta\":{}}],\"created\":1727384000,\"id\":\"chatcmpl-x\","
                        + "\"model\":\"qwen\",\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":3,\"prompt_tokens\":9,"
                        + "\"total_tokens\":12},\"timings\":{\"prompt_n\":9,\"prompt_ms\":12.5,\"cache_n\":0,\"predicted_n\":3,"
                        + "\"predicted_per_second\":88.2}}",
                "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"mock\","
                        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<too\"},\"finish_reason\":null}]}")) {
            byte[] bytes = utf8(event);
            cursor.reset(bytes, bytes.length);
            assertThat(decoder.readUsual(cursor)).as(event).isTrue();   // an unusual event would throw
            cursor.finish();
        }
    }

    @Test
    void argumentsSentAsAnObjectGoBackAsItsJsonText() {
        byte[] stream = stream(List.of(
                utf8("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"f\","
                        + "\"arguments\":{\"a\": 2.50, \"b\": [true, null, \"é\"]}}}]},\"finish_reason\":\"tool_calls\"}]}"),
                utf8("[DONE]")));
        assertThat(outcome(stream, false)).startsWith(
                "ToolCallDelta[index=0, id=c1, name=f, arguments={\"a\":2.5,\"b\":[true,null,\"é\"]}]");
        assertThat(outcome(stream, false)).isEqualTo(outcome(stream, true));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<byte[]>> events() {
        return events(false);
    }

    /** Events of the kinds servers send (every value of its usual kind, well-formed), read by the cursor. */
    @Provide
    Arbitrary<List<byte[]>> usualEvents() {
        return events(true);
    }

    private Arbitrary<List<byte[]>> events(boolean usual) {
        Arbitrary<Mutation> mutation = usual
                ? Arbitraries.of(" ", "\t", "").map(space -> json -> space.isEmpty() ? json : spacedOut(json, space))
                : mutation();
        Arbitrary<byte[]> event = Combinators.combine(root(usual), mutation).as((json, mutate) -> mutate.apply(utf8(json)));
        return event.list().ofMinSize(1).ofMaxSize(5).map(list -> {
            List<byte[]> all = new ArrayList<>(list);
            all.add(utf8("[DONE]"));
            return all;
        });
    }

    private interface Mutation {
        byte[] apply(byte[] json);
    }

    /** Most events unchanged; some spaced out, cut short, given invalid UTF-8, trailing text, or a stray byte. */
    private Arbitrary<Mutation> mutation() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(10, Arbitraries.just(json -> json)),
                // (no line breaks: they would end the SSE data line)
                net.jqwik.api.Tuple.of(2, Arbitraries.of(" ", "\t", " \t ", "  ").map(space -> json -> spacedOut(json, space))),
                net.jqwik.api.Tuple.of(2, Arbitraries.doubles().between(0, 1).map(at -> json ->
                        java.util.Arrays.copyOf(json, (int) (json.length * at)))),
                net.jqwik.api.Tuple.of(2, Arbitraries.of("  ", " x", "}", " {\"a\":", "\u000b", " \u2003").map(tail -> json -> {
                    byte[] end = utf8(tail);
                    byte[] all = java.util.Arrays.copyOf(json, json.length + end.length);
                    System.arraycopy(end, 0, all, json.length, end.length);
                    return all;
                })),
                net.jqwik.api.Tuple.of(2, Combinators.combine(Arbitraries.doubles().between(0, 1),
                        Arbitraries.of((byte) 0xFF, (byte) 0xC3, (byte) 0xE2, (byte) '"', (byte) ',', (byte) '\\'))
                        .as((at, b) -> json -> {
                            byte[] all = java.util.Arrays.copyOf(json, json.length + 1);
                            int i = (int) (json.length * at);
                            System.arraycopy(json, i, all, i + 1, json.length - i);
                            all[i] = b;
                            return all;
                        })));
    }

    /** JSON whitespace after every structural character outside strings (and before the colons). */
    private static byte[] spacedOut(byte[] json, String space) {
        byte[] gap = utf8(space);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean inString = false;
        for (int i = 0; i < json.length; i++) {
            byte b = json[i];
            if (inString) {
                out.write(b);
                if (b == '\\' && i + 1 < json.length) {
                    out.write(json[++i]);
                } else if (b == '"') {
                    inString = false;
                }
                continue;
            }
            if (b == ':') {
                out.writeBytes(gap);
            }
            out.write(b);
            if (b == '"') {
                inString = true;
            } else if (b == '{' || b == '[' || b == ',' || b == ':' || b == '}' || b == ']') {
                out.writeBytes(gap);
            }
        }
        return out.toByteArray();
    }

    private Arbitrary<String> root(boolean usual) {
        Arbitrary<String> field = Arbitraries.oneOf(
                text(usual).map(t -> "\"id\":" + t),
                text(usual).map(t -> "\"model\":" + t),
                Arbitraries.just("\"object\":\"chat.completion.chunk\""),
                choices(usual).map(c -> "\"choices\":" + c),
                usage(usual).map(u -> "\"usage\":" + u),
                timings(usual).map(t -> "\"timings\":" + t),
                Arbitraries.of("\"error\":null", "\"error\":{\"message\":\"boom\",\"code\":429}", "\"error\":\"bad\""),
                usual ? Arbitraries.of("\"created\":1727384000", "\"created\":-0", "\"system_fingerprint\":\"fp\"",
                        "\"x\":[1.5e3,{\"y\":[],\"\\u0069d\":\"é\"}]", "\"é\":\"\\\"\"", "\"\":0")
                // what the cursor leaves to the parser: an escaped or unusual name, deep nesting, odd numbers
                : Arbitraries.of("\"\\u0069d\":\"escaped\"", "\"mod\\u0065l\":\"m\"", "\"é\":1", "\"\":0",
                        "\"x\":" + "[".repeat(70) + "]".repeat(70), "\"x\":" + "[".repeat(70) + "]".repeat(69),
                        "\"created\":1.5e3", "\"created\":-0", "\"created\":01", "\"created\":1.", "\"created\":-",
                        "\"created\":.5", "\"created\":1e", "\"created\":tru", "\"created\":nul", "\"x\":{\"a\" 1}",
                        "\"x\":[1 2]", "\"x\":{,}", "\"x\":[,]", "\"x\":{\"a\":1,}", "\"x\":\"\\q\""));
        if (usual) {
            return field.list().ofMaxSize(6).map(ChunkDecoderProperties::object);
        }
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(20, field.list().ofMaxSize(5).map(ChunkDecoderProperties::object)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("[1]", "\"text\"", "42", "null", "{}", " {\"choices\":[]} ")));
    }

    private Arbitrary<String> choices(boolean usual) {
        return Arbitraries.oneOf(choice(usual).list().ofMaxSize(3).map(ChunkDecoderProperties::array),
                Arbitraries.of("null", "{}", "[1, null, \"x\"]"));
    }

    private Arbitrary<String> choice(boolean usual) {
        Arbitrary<String> field = Arbitraries.oneOf(
                numberish(usual).map(n -> "\"index\":" + n),
                delta(usual).map(d -> "\"delta\":" + d),
                text(usual).map(t -> "\"finish_reason\":" + t),
                Arbitraries.just("\"logprobs\":null"));
        return field.list().ofMaxSize(4).map(ChunkDecoderProperties::object);
    }

    private Arbitrary<String> delta(boolean usual) {
        Arbitrary<String> field = Arbitraries.oneOf(
                Arbitraries.of("content", "reasoning", "reasoning_content", "refusal", "role")
                        .flatMap(name -> text(usual).map(t -> "\"" + name + "\":" + t)),
                toolCall(usual).list().ofMaxSize(3).map(calls -> "\"tool_calls\":" + array(calls)),
                Arbitraries.of("\"tool_calls\":null", "\"tool_calls\":[1,\"x\"]", "\"function_call\":{\"name\":\"f\"}"));
        return Arbitraries.oneOf(field.list().ofMaxSize(4).map(ChunkDecoderProperties::object),
                Arbitraries.of("null", "\"text\"", "[]"));
    }

    private Arbitrary<String> toolCall(boolean usual) {
        Arbitrary<String> function = Arbitraries.oneOf(
                Arbitraries.oneOf(text(usual).map(t -> "\"name\":" + t), arguments(usual).map(a -> "\"arguments\":" + a))
                        .list().ofMaxSize(3).map(ChunkDecoderProperties::object),
                Arbitraries.of("null", "\"f\""));
        Arbitrary<String> field = Arbitraries.oneOf(
                numberish(usual).map(n -> "\"index\":" + n),
                text(usual).map(t -> "\"id\":" + t),
                Arbitraries.just("\"type\":\"function\""),
                function.map(f -> "\"function\":" + f));
        return field.list().ofMaxSize(4).map(ChunkDecoderProperties::object);
    }

    private Arbitrary<String> arguments(boolean usual) {
        if (usual) {
            return text(true).filter(t -> t.startsWith("\"") || t.equals("null"));
        }
        return Arbitraries.oneOf(text(usual), Arbitraries.of("{\"a\":2,\"b\":[1.5,true,null]}", "[1]", "3", "{}"));
    }

    private Arbitrary<String> usage(boolean usual) {
        Arbitrary<String> field = Arbitraries.of("prompt_tokens", "completion_tokens", "total_tokens")
                .flatMap(name -> numberish(usual).map(n -> "\"" + name + "\":" + n));
        return Arbitraries.oneOf(field.list().ofMaxSize(3).map(ChunkDecoderProperties::object),
                Arbitraries.of("null", "[]", "7"));
    }

    private Arbitrary<String> timings(boolean usual) {
        Arbitrary<String> field = Arbitraries.of("prompt_n", "cache_n", "predicted_n", "predicted_ms")
                .flatMap(name -> numberish(usual).map(n -> "\"" + name + "\":" + n));
        return field.list().ofMaxSize(4).map(ChunkDecoderProperties::object);
    }

    private Arbitrary<String> numberish(boolean usual) {
        if (usual) {
            return Arbitraries.of("0", "1", "2", "-1", "12", "-0", "3000000000", "2147483647", "-2147483648",
                    "123456789012345678");
        }
        return Arbitraries.of("0", "1", "2", "-1", "12", "3000000000", "99999999999999999999", "1.0", "2.5e1",
                "\"0\"", "\"x\"", "null", "true", "{}", "[0]", "-0", "00", "1E+2", "0.5", "2147483647",
                "2147483648", "-2147483648", "-2147483649", "123456789012345678", "1234567890123456789",
                "9223372036854775807", "-9223372036854775808");
    }

    private Arbitrary<String> text(boolean usual) {
        if (usual) {
            return Arbitraries.oneOf(
                    Arbitraries.of("", "a", "Hé", "中文", "😀", "\\u00e9", "\\ud83d\\ude00", "\\n", "\\\"q\\\"", "stop",
                                    "\\u00C9t\\u00e9", "\\ud800", "a\\udc00b", "\\/\\b\\f\\r\\t\\\\", "é\\né", "a\\u0000b",
                                    "{\\\"a\\\": 2}", "<tool>")
                            .map(t -> "\"" + t + "\""),
                    Arbitraries.of("null", "1", "{}", "[\"a\"]", "false", "2.5"));
        }
        return Arbitraries.oneOf(
                Arbitraries.of("", "a", "Hé", "中文", "😀", "\\u00e9", "\\ud83d\\ude00", "\\n", "\\\"q\\\"", "stop", "tool_calls",
                        "\\u00C9t\\u00e9", "\\ud800", "a\\udc00b", "\\/\\b\\f\\r\\t\\\\", "é\\né", "a\\u0000b",
                        "\u0001", "\\x", "\\u12", "\\u12g4", "tab\tin")
                        .map(t -> "\"" + t + "\""),
                Arbitraries.of("null", "1", "{}", "[\"a\"]", "false"));
    }

    private static String object(List<String> fields) {
        return "{" + String.join(",", fields) + "}";
    }

    private static String array(List<String> values) {
        return "[" + String.join(",", values) + "]";
    }
}
