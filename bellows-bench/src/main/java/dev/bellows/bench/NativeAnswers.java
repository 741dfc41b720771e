package dev.bellows.bench;

import tools.jackson.core.io.JsonStringEncoder;
import dev.bellows.http.SseEvent;
import dev.bellows.http.SseParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Native tool-calling answers as the APIs stream them, for {@link NativeAnswerBenchmark}:
 * reasoning, a sentence of text, then a {@code write_file} call whose arguments (about 2 KB of
 * escaped source) arrive in pieces of 3 to 9 chars, one event each, as OpenAI and Anthropic
 * send them; and the short {@code task_completion} call that ends the run. Each in the
 * OpenAI-compatible form ({@code chat.completion.chunk}) and the Anthropic Messages form
 * (thinking block with signature, text block, {@code tool_use} block with
 * {@code input_json_delta}s), parsed once into {@link SseEvent}s over their bytes, as the
 * HTTP client delivers them. Deterministic (fixed seed).
 */
public final class NativeAnswers {

    /** The arguments of the {@code write_file} call: path and content. */
    public static final String WRITE_ARGUMENTS = writeArguments();
    public static final String COMPLETION_ARGUMENTS = "{\"result\":\"written\"}";

    private NativeAnswers() {
    }

    /** The first answer (reasoning, text, the write_file call), in {@code format} (openai, anthropic). */
    public static List<SseEvent> writeFile(String format) {
        return format.equals("openai")
                ? openAi("call_1", "write_file", WRITE_ARGUMENTS, true)
                : anthropic("toolu_1", "write_file", WRITE_ARGUMENTS, true);
    }

    /** The second answer: the task_completion call alone. */
    public static List<SseEvent> completion(String format) {
        return format.equals("openai")
                ? openAi("call_2", "task_completion", COMPLETION_ARGUMENTS, false)
                : anthropic("toolu_2", "task_completion", COMPLETION_ARGUMENTS, false);
    }

    private static final String[] REASONING = {"The user", " wants", " the file", " written;", " I will",
        " call", " write_file", " with", " the path", " and", " its", " content", "."};
    private static final String[] TEXT = {"I will", " write", " the file", " now", "."};

    private static List<SseEvent> openAi(String id, String name, String arguments, boolean preamble) {
        StringBuilder sse = new StringBuilder();
        String head = "{\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":";
        sse.append(data(head + "{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}"));
        if (preamble) {
            for (String piece : REASONING) {
                sse.append(data(head + "{\"reasoning_content\":" + quote(piece) + "},\"finish_reason\":null}]}"));
            }
            for (String piece : TEXT) {
                sse.append(data(head + "{\"content\":" + quote(piece) + "},\"finish_reason\":null}]}"));
            }
        }
        sse.append(data(head + "{\"tool_calls\":[{\"index\":0,\"id\":\"" + id + "\",\"type\":\"function\","
                + "\"function\":{\"name\":\"" + name + "\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}"));
        for (String piece : pieces(arguments)) {
            sse.append(data(head + "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":" + quote(piece)
                    + "}}]},\"finish_reason\":null}]}"));
        }
        sse.append(data(head + "{},\"finish_reason\":\"tool_calls\"}]}"));
        sse.append(data("{\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                + "\"model\":\"gpt-4o-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":640,"
                + "\"total_tokens\":1452}}"));
        sse.append(data("[DONE]"));
        return events(sse.toString());
    }

    private static List<SseEvent> anthropic(String id, String name, String arguments, boolean preamble) {
        StringBuilder sse = new StringBuilder();
        sse.append(event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\","
                + "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,"
                + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":812,\"output_tokens\":1}}}"));
        int block = 0;
        if (preamble) {
            sse.append(event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                    + "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}"));
            for (String piece : REASONING) {
                sse.append(event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":" + quote(piece) + "}}"));
            }
            sse.append(event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                    + "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"}}"));
            sse.append(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"));
            sse.append(event("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,"
                    + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"));
            for (String piece : TEXT) {
                sse.append(event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":" + quote(piece) + "}}"));
            }
            sse.append(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}"));
            block = 2;
        }
        sse.append(event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + block
                + ",\"content_block\":{\"type\":\"tool_use\",\"id\":\"" + id + "\",\"name\":\"" + name + "\",\"input\":{}}}"));
        for (String piece : pieces(arguments)) {
            sse.append(event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + block
                    + ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + quote(piece) + "}}"));
        }
        sse.append(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + block + "}"));
        sse.append(event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
                + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":640}}"));
        sse.append(event("message_stop", "{\"type\":\"message_stop\"}"));
        return events(sse.toString());
    }

    /** The arguments cut into pieces of 3 to 9 chars, as the APIs stream them. */
    private static List<String> pieces(String text) {
        Random random = new Random(0x5EED_7001L);
        List<String> pieces = new ArrayList<>();
        for (int at = 0; at < text.length(); ) {
            int end = Math.min(text.length(), at + 3 + random.nextInt(7));
            pieces.add(text.substring(at, end));
            at = end;
        }
        return pieces;
    }

    private static String writeArguments() {
        StringBuilder source = new StringBuilder();
        Random random = new Random(0x5EED_7002L);
        String[] lines = {"public final class Main {", "    public static void main(String[] args) {",
            "        System.out.println(\"Hello, \\u00e9 world\");", "        int x = a < b ? 1 : 2;",
            "        List<String> names = List.of(\"a\", \"b\");", "    }", "}", "// <tool> is just text here",
            "        String html = \"<li>item</li>\";", "\tif (x > 10) { return; }"};
        while (source.length() < 2000) {
            source.append(lines[random.nextInt(lines.length)]).append('\n');
        }
        return "{\"path\":\"src/main/java/Main.java\",\"content\":" + quote(source.toString()) + "}";
    }

    private static String data(String json) {
        return "data: " + json + "\n\n";
    }

    private static String event(String type, String json) {
        return "event: " + type + "\ndata: " + json + "\n\n";
    }

    private static String quote(String text) {
        return "\"" + new String(JsonStringEncoder.getInstance().quoteAsCharArray(text)) + "\"";
    }

    private static List<SseEvent> events(String sse) {
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        byte[] bytes = sse.getBytes(StandardCharsets.UTF_8);
        parser.feed(bytes, 0, bytes.length);
        parser.finish();
        return List.copyOf(events);
    }
}
