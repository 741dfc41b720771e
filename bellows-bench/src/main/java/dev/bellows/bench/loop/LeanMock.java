package dev.bellows.bench.loop;

import dev.bellows.bench.mock.RawRequest;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The model of the loop comparison: an OpenAI-compatible chat completions endpoint on
 * 127.0.0.1 that answers every task the same way, one tool call ({@code add} 2 and 3) and then
 * a final answer, with zero delay; or, for the concurrency run, several tool calls and answers
 * that arrive in bursts with a pause between them, as a model's tokens do.
 *
 * <p>It is as lean as an HTTP/1.1 server can be, so that what it costs is small and the same
 * for every contestant: every answer is rendered to bytes once, at start; a request is
 * classified with two byte searches, never parsed ({@link MockAnswers} says which answer a
 * request gets). Every SSE event is an HTTP chunk of its own; the last chunk is written with
 * the last event, in one write. It counts connections accepted, requests and request body bytes, so that the harness can
 * report new connections and bytes sent per iteration. Connections are kept alive as long as
 * the client keeps them.
 *
 * <p>Run by {@link #main} it is a process of its own, so that a harness with many sessions
 * does not share its heap and threads with the model (see {@link MockProcess}); its counters
 * are then read with {@code GET /stats}.
 */
final class LeanMock implements ModelMock {

    /** What the tool returns, and how the mock knows the tool has run. */
    static final String TOOL_RESULT = "sum=5";
    /** The final answer every contestant must give back. */
    static final String FINAL_ANSWER = "The sum is 5.";

    private final ServerSocket server;
    private final Thread acceptor;
    private final long pauseMillis;
    private final MockAnswers answers;
    /** Each answer as it goes on the wire, in parts: rendered once, at start. */
    private final Map<MockAnswers.Answer, byte[][]> wire = new IdentityHashMap<>();
    final AtomicLong connections = new AtomicLong();
    final AtomicLong requests = new AtomicLong();
    final AtomicLong requestBodyBytes = new AtomicLong();

    /** The comparison's mock: one tool call, then the answer, all at once. */
    LeanMock() throws IOException {
        this(1, 1, 0);
    }

    /**
     * @param toolCalls how many times the model calls {@code add} before it answers
     * @param bursts    each answer is sent in this many parts...
     * @param pauseMillis ...with this pause before every part after the first
     */
    LeanMock(int toolCalls, int bursts, long pauseMillis) throws IOException {
        this(toolCalls, bursts, pauseMillis, 0);
    }

    private LeanMock(int toolCalls, int bursts, long pauseMillis, int port) throws IOException {
        this.pauseMillis = pauseMillis;
        answers = new MockAnswers(toolCalls, bursts);
        for (MockAnswers.Answer answer : answers.all()) {
            wire.put(answer, response(answer));
        }
        // 10,000 sessions connect at once: a short accept queue would drop their SYNs, and
        // each drop costs a second of retransmission.
        server = new ServerSocket(port, 8192, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofPlatform().daemon().name("lean-mock-accept").start(this::acceptLoop);
    }

    @Override
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/v1";
    }

    @Override
    public String name() {
        return "lean mock, chunked";
    }

    @Override
    public long connections() {
        return connections.get();
    }

    @Override
    public long requests() {
        return requests.get();
    }

    @Override
    public long requestBodyBytes() {
        return requestBodyBytes.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
            // Every answer part is one array written whole: no buffer of its own needed.
            OutputStream out = socket.getOutputStream();
            boolean counted = false;
            while (true) {
                RawRequest request = RawRequest.read(in);
                if (request == null) {
                    return;
                }
                if (request.line().startsWith("GET /stats")) {
                    out.write(stats());
                    continue;
                }
                if (!counted) {
                    // Counted at its first chat request, so that the harness's own /stats
                    // connections are not.
                    connections.incrementAndGet();
                    counted = true;
                }
                byte[] body = request.body();
                requests.incrementAndGet();
                requestBodyBytes.addAndGet(body.length);
                byte[][] parts = wire.get(answers.to(body));
                for (int part = 0; part < parts.length; part++) {
                    if (part > 0) {
                        Thread.sleep(pauseMillis);
                    }
                    out.write(parts[part]);
                    out.flush();
                }
            }
        } catch (IOException clientWentAway) {
            // The client closed the connection: nothing to answer.
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
        }
    }

    /** The counters and this process's CPU time, as {@code key=value} lines. */
    private byte[] stats() {
        String text = "connections=" + connections.get() + "\nrequests=" + requests.get()
                + "\nrequestBodyBytes=" + requestBodyBytes.get() + "\n";
        return ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + text.length() + "\r\n\r\n" + text)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Runs the mock as a process of its own until its standard input ends (the harness that
     * started it closes it, or dies). Prints {@code listening PORT} once it accepts.
     *
     * <pre>
     * java -cp benchmarks.jar dev.bellows.bench.loop.LeanMock [--tool-calls 2] [--bursts 3] [--pause-ms 50] [--port 0]
     * </pre>
     */
    public static void main(String[] args) throws IOException {
        int toolCalls = 1;
        int bursts = 1;
        long pauseMillis = 0;
        int port = 0;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--tool-calls" -> toolCalls = Integer.parseInt(args[i + 1]);
                case "--bursts" -> bursts = Integer.parseInt(args[i + 1]);
                case "--pause-ms" -> pauseMillis = Long.parseLong(args[i + 1]);
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try (LeanMock mock = new LeanMock(toolCalls, bursts, pauseMillis, port)) {
            System.out.println("listening " + mock.server.getLocalPort());
            System.out.flush();
            while (System.in.read() >= 0) {
                // Nothing is read from the harness: its end is the signal to stop.
            }
        }
    }

    /**
     * The whole HTTP response in its bursts: the headers with the first, every SSE event as
     * its own HTTP chunk, the end with the last.
     */
    private static byte[][] response(MockAnswers.Answer answer) {
        List<List<String>> bursts = answer.bursts();
        byte[][] parts = new byte[bursts.size()][];
        for (int burst = 0; burst < bursts.size(); burst++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            if (burst == 0) {
                bytes.writeBytes(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                        + "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
            }
            for (String event : bursts.get(burst)) {
                httpChunk(bytes, event);
            }
            if (burst == bursts.size() - 1) {
                bytes.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            parts[burst] = bytes.toByteArray();
        }
        return parts;
    }

    private static void httpChunk(ByteArrayOutputStream bytes, String text) {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        bytes.writeBytes((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        bytes.writeBytes(data);
        bytes.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public void close() throws IOException {
        server.close();
        acceptor.interrupt();
    }
}
