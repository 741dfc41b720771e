package dev.bellows.bench.anthropic;

import static dev.bellows.bench.mock.RawRequest.indexOf;

import dev.bellows.bench.mock.JsonText;
import dev.bellows.bench.mock.RawRequest;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A lean Anthropic Messages endpoint on 127.0.0.1 that answers every task the same way: one
 * call of {@code add} (2 and 3), then the final answer, streamed at once in the event shapes of
 * Anthropic's streaming documentation, text and arguments in 4-character deltas.
 *
 * <p>Every answer is rendered to bytes once, at start; a request is classified with byte
 * searches, never parsed:
 * <ul>
 *   <li>with a {@code "tools"} field, the call is a {@code tool_use} block; without, it is
 *       written in the text as Bellows' {@code <tool>} tag;</li>
 *   <li>once the tool's result ({@code sum=5}) is in the conversation, the final answer (a
 *       {@code task_completion} call, as a block or a tag), else the call.</li>
 * </ul>
 * Each connection is served by a platform thread of its own, which adds up what it allocates
 * while it serves requests, so that the harness can leave the mock's share out of the figures.
 * It counts connections, requests and request body bytes.
 */
final class AnthropicMock implements AutoCloseable {

    /** What the tool returns, and how the mock knows the tool has run. */
    static final String TOOL_RESULT = "sum=5";
    /** The final answer every run must give back. */
    static final String FINAL_ANSWER = "The sum is 5.";

    private static final byte[] TOOLS_FIELD = ascii("\"tools\"");
    private static final byte[] RESULT_MARK = ascii(TOOL_RESULT);
    private static final int PIECE = 4;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final ServerSocket server;
    private final byte[] tagCall;
    private final byte[] tagFinal;
    private final byte[] nativeCall;
    private final byte[] nativeFinal;
    final AtomicLong connections = new AtomicLong();
    final AtomicLong requests = new AtomicLong();
    final AtomicLong requestBodyBytes = new AtomicLong();
    /** Bytes the serving threads allocated while reading requests and writing answers. */
    final AtomicLong ownAllocation = new AtomicLong();

    AnthropicMock() throws IOException {
        tagCall = response(textBlock(0, "I will add them.\n<tool>{\"tool_name\": \"add\", "
                + "\"arguments\": {\"a\": 2, \"b\": 3}}</tool>"), "end_turn");
        tagFinal = response(textBlock(0, "<tool>{\"tool_name\": \"task_completion\", "
                + "\"arguments\": {\"result\": \"" + FINAL_ANSWER + "\"}}</tool>"), "end_turn");
        List<String> call = textBlock(0, "I will add them.");
        call.addAll(toolUseBlock(1, "toolu_01", "add", "{\"a\": 2, \"b\": 3}"));
        nativeCall = response(call, "tool_use");
        nativeFinal = response(toolUseBlock(0, "toolu_02", "task_completion",
                "{\"result\": \"" + FINAL_ANSWER + "\"}"), "tool_use");
        server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("anthropic-mock-accept").start(this::acceptLoop);
    }

    /** The base URL as users give it. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/v1";
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.incrementAndGet();
                Thread.ofPlatform().daemon().name("anthropic-mock-conn").start(() -> serve(socket));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 16384);
            OutputStream out = socket.getOutputStream();
            while (true) {
                // Counted from here: waiting for the next request allocates nothing.
                long before = THREADS.getCurrentThreadAllocatedBytes();
                RawRequest request = RawRequest.read(in);
                if (request == null) {
                    return;
                }
                byte[] body = request.body();
                requests.incrementAndGet();
                requestBodyBytes.addAndGet(body.length);
                boolean nativeTools = indexOf(body, TOOLS_FIELD, 0) >= 0;
                boolean answer = indexOf(body, RESULT_MARK, 0) >= 0;
                out.write(nativeTools ? (answer ? nativeFinal : nativeCall) : (answer ? tagFinal : tagCall));
                out.flush();
                ownAllocation.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - before);
            }
        } catch (IOException clientWentAway) {
            // The client closed the connection: nothing to answer.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    /** The next request's body on the connection, or null at its end. */
    private static List<String> textBlock(int index, String text) {
        List<String> events = new ArrayList<>();
        events.add(event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index
                + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"));
        for (int start = 0; start < text.length(); start += PIECE) {
            String piece = text.substring(start, Math.min(text.length(), start + PIECE));
            events.add(event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index
                    + ",\"delta\":{\"type\":\"text_delta\",\"text\":" + JsonText.string(piece) + "}}"));
        }
        events.add(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}"));
        return events;
    }

    private static List<String> toolUseBlock(int index, String id, String name, String arguments) {
        List<String> events = new ArrayList<>();
        events.add(event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index
                + ",\"content_block\":{\"type\":\"tool_use\",\"id\":\"" + id + "\",\"name\":\"" + name
                + "\",\"input\":{}}}"));
        for (int start = 0; start < arguments.length(); start += PIECE) {
            String piece = arguments.substring(start, Math.min(arguments.length(), start + PIECE));
            events.add(event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index
                    + ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + JsonText.string(piece) + "}}"));
        }
        events.add(event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}"));
        return events;
    }

    /** The whole HTTP response: message_start, the blocks, message_delta, message_stop. */
    private static byte[] response(List<String> blocks, String stopReason) {
        StringBuilder sse = new StringBuilder();
        sse.append(event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\","
                + "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"mock\","
                + "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}"));
        blocks.forEach(sse::append);
        sse.append(event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
                + "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":10}}"));
        sse.append(event("message_stop", "{\"type\":\"message_stop\"}"));
        byte[] body = sse.toString().getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(ascii("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n"));
        bytes.writeBytes(body);
        return bytes.toByteArray();
    }

    private static String event(String name, String data) {
        return "event: " + name + "\ndata: " + data + "\n\n";
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
