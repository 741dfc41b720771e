package dev.bellows.bench.loop;

import static dev.bellows.bench.mock.RawRequest.indexOf;

import dev.bellows.bench.mock.JsonText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The canned answers of the loop mocks ({@link LeanMock}, {@link JdkServerMock}), as SSE
 * events, and which one a request gets. Each mock frames them its own way on the wire; the
 * events are the same whatever the framing, so that every mock asks the same of a client.
 *
 * <p>Which answer a request gets depends only on the request:
 * <ul>
 *   <li>with a {@code "tools"} field, the answer uses native {@code tool_calls}; without,
 *       the call is written in the message text as Bellows' {@code <tool>} tag;</li>
 *   <li>once the tool's result ({@code sum=5}) is in the conversation {@code toolCalls}
 *       times, the final answer, else the call; a native final answer is a
 *       {@code task_completion} call when the request offers that tool, else plain text.</li>
 * </ul>
 */
final class MockAnswers {

    private static final byte[] TOOLS_FIELD = "\"tools\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COMPLETION_TOOL = "\"task_completion\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESULT_MARK = LeanMock.TOOL_RESULT.getBytes(StandardCharsets.US_ASCII);
    private static final int PIECE = 4;

    /**
     * One answer in bursts: each burst a list of whole SSE events ({@code data: ...\n\n}), the
     * last one ending with {@code data: [DONE]}.
     */
    record Answer(List<List<String>> bursts) {
    }

    private final int toolCalls;
    private final Answer tagCall;
    private final Answer tagFinal;
    private final Answer nativeCall;
    private final Answer nativeFinal;
    private final Answer nativeCompletion;

    /**
     * @param toolCalls how many times the model calls {@code add} before it answers
     * @param bursts    each answer is split in this many parts of about as many events each
     */
    MockAnswers(int toolCalls, int bursts) {
        this.toolCalls = toolCalls;
        tagCall = answer(contentEvents("I will add them.\n<tool>{\"tool_name\": \"add\", "
                + "\"arguments\": {\"a\": 2, \"b\": 3}}</tool>"), "stop", bursts);
        tagFinal = answer(contentEvents("<tool>{\"tool_name\": \"task_completion\", "
                + "\"arguments\": {\"result\": \"" + LeanMock.FINAL_ANSWER + "\"}}</tool>"), "stop", bursts);
        List<String> callEvents = contentEvents("I will add them.");
        callEvents.addAll(toolCallEvents("call_1", "add", "{\"a\": 2, \"b\": 3}"));
        nativeCall = answer(callEvents, "tool_calls", bursts);
        nativeFinal = answer(contentEvents(LeanMock.FINAL_ANSWER), "stop", bursts);
        nativeCompletion = answer(toolCallEvents("call_2", "task_completion",
                "{\"result\": \"" + LeanMock.FINAL_ANSWER + "\"}"), "tool_calls", bursts);
    }

    /** Every answer this mock may give, each once. */
    List<Answer> all() {
        return List.of(tagCall, tagFinal, nativeCall, nativeFinal, nativeCompletion);
    }

    /** The answer to a request with this body. */
    Answer to(byte[] body) {
        boolean nativeTools = indexOf(body, TOOLS_FIELD, 0) >= 0;
        boolean answer = count(body, RESULT_MARK) >= toolCalls;
        return !nativeTools ? (answer ? tagFinal : tagCall)
                : !answer ? nativeCall
                // An agent that offers a tool to end its loop gets its answer through it.
                : indexOf(body, COMPLETION_TOOL, 0) >= 0 ? nativeCompletion : nativeFinal;
    }

    private static int count(byte[] haystack, byte[] needle) {
        int count = 0;
        for (int at = indexOf(haystack, needle, 0); at >= 0; at = indexOf(haystack, needle, at + needle.length)) {
            count++;
        }
        return count;
    }

    private static List<String> contentEvents(String content) {
        List<String> events = new ArrayList<>();
        for (int start = 0; start < content.length(); start += PIECE) {
            String piece = content.substring(start, Math.min(content.length(), start + PIECE));
            events.add(chunk("{\"content\":" + JsonText.string(piece) + "}", null));
        }
        return events;
    }

    private static List<String> toolCallEvents(String id, String name, String arguments) {
        List<String> events = new ArrayList<>();
        events.add(chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"" + id + "\",\"type\":\"function\","
                + "\"function\":{\"name\":\"" + name + "\",\"arguments\":\"\"}}]}", null));
        for (int start = 0; start < arguments.length(); start += PIECE) {
            String piece = arguments.substring(start, Math.min(arguments.length(), start + PIECE));
            events.add(chunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
                    + JsonText.string(piece) + "}}]}", null));
        }
        return events;
    }

    private static String chunk(String delta, String finishReason) {
        return "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                + "\"model\":\"mock\",\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":"
                + (finishReason == null ? "null" : "\"" + finishReason + "\"") + "}]}";
    }

    /** The events, the finish reason with usage last, then {@code [DONE]}, in bursts. */
    private static Answer answer(List<String> events, String finishReason, int bursts) {
        List<String> all = new ArrayList<>(events);
        all.add(chunk("{}", finishReason).replace("]}", "],\"usage\":{\"prompt_tokens\":10,"
                + "\"completion_tokens\":10,\"total_tokens\":20}}"));
        List<List<String>> parts = new ArrayList<>(bursts);
        int perBurst = (all.size() + bursts - 1) / bursts;
        for (int burst = 0; burst < bursts; burst++) {
            List<String> part = new ArrayList<>();
            for (String event : all.subList(Math.min(all.size(), burst * perBurst),
                    Math.min(all.size(), (burst + 1) * perBurst))) {
                part.add("data: " + event + "\n\n");
            }
            if (burst == bursts - 1) {
                part.add("data: [DONE]\n\n");
            }
            parts.add(List.copyOf(part));
        }
        return new Answer(List.copyOf(parts));
    }
}
