package dev.bellows.bench.loop;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The loop comparison's model on the JDK's own HTTP server ({@code com.sun.net.httpserver}),
 * as a user would write a mock, with the same answers as {@link LeanMock} ({@link MockAnswers})
 * framed as a server framework frames them: with a {@code Content-Length} (the whole answer's
 * length said up front, as servers that render an answer before they send it do) or chunked
 * (one HTTP chunk per burst). The lean mock writes every SSE event as its own chunk with the
 * terminating chunk in the same write; here the framing and its timing are the JDK server's.
 *
 * <p>Handlers run on virtual threads. The JDK server closes a connection that becomes idle
 * while 200 others are ({@code sun.net.httpserver.maxIdleConnections}), counting every
 * client's, and one idle for 30 s ({@code sun.net.httpserver.idleInterval}). The harness keeps
 * each contestant's connections open while the others take their turns (six contestants with
 * 64 tasks at once hold 384), so {@link #main} and {@link #start} raise both, unless set: the
 * server closing connections would make every client open new ones, whatever it does. And
 * it sends with Nagle's algorithm on ({@code sun.net.httpserver.nodelay} is false by default,
 * where most servers turn it off): a chunked answer's last chunk, a small write of its own
 * after the events, then waits for the client's delayed acknowledgement, about 40 ms per
 * answer for every client alike; the mock turns it off, unless set.
 *
 * <p>{@link #withDefaults} is the same server with none of that: the JDK's defaults, as a
 * user's own server would run (200 idle connections at most, 30 s idle, Nagle's algorithm on).
 * The defaults are read once per process, when the JDK server's class is first used, so a
 * process runs either kind, never both.
 *
 * <p>New connections are counted by the client's port: the first chat request from a port
 * not seen before is a new connection, and belongs to the contestant being served then
 * ({@link #serving}). Linux hands out the ports of new connections in turn over its range
 * (28,000 here), so a port comes back only after that many connections; the count is exact
 * below that. The connections a contestant keeps open are counted by the kernel
 * ({@link OpenConnections}), by the same ports.
 */
final class JdkServerMock implements ModelMock {

    /** How the answer's body is delimited on the wire. */
    enum Framing {
        /** {@code Content-Length}: the body's length said in the headers. */
        LENGTH,
        /** {@code Transfer-Encoding: chunked}: one chunk per burst, then the last chunk. */
        CHUNKED;

        static Framing parse(String text) {
            return switch (text) {
                case "length" -> LENGTH;
                case "chunked" -> CHUNKED;
                default -> throw new IllegalArgumentException("framing is length or chunked, not " + text);
            };
        }

        @Override
        public String toString() {
            return this == LENGTH ? "Content-Length" : "chunked";
        }
    }

    private static final String MAX_IDLE = "sun.net.httpserver.maxIdleConnections";
    private static final String IDLE_INTERVAL = "sun.net.httpserver.idleInterval";
    private static final String NO_DELAY = "sun.net.httpserver.nodelay";
    /** The JDK server's own defaults of those three (see its module's documentation). */
    private static final Map<String, String> DEFAULTS = Map.of(MAX_IDLE, "200", IDLE_INTERVAL, "30", NO_DELAY, "false");
    /** Whether this process's JDK servers run with raised settings (set by the first start). */
    private static Boolean raised;

    private final HttpServer server;
    private final ExecutorService executor;
    private final Framing framing;
    private final long pauseMillis;
    private final MockAnswers answers;
    /** Each answer's bursts as bytes; with their total length for {@code Content-Length}. */
    private final Map<MockAnswers.Answer, byte[][]> wire = new IdentityHashMap<>();
    private final Map<MockAnswers.Answer, Long> lengths = new IdentityHashMap<>();
    private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong requestBodyBytes = new AtomicLong();
    /** Each client port seen, with the contestant served when it made its first request. */
    private final Map<Integer, String> owners = new ConcurrentHashMap<>();
    private volatile String serving = "";
    private final boolean defaults;
    /** Chat requests held until that many came (see {@link #holdTogether}); null when none are. */
    private volatile CountDownLatch together;

    /**
     * @param toolCalls   how many times the model calls {@code add} before it answers
     * @param bursts      each answer is sent in this many parts...
     * @param pauseMillis ...with this pause before every part after the first
     */
    static JdkServerMock start(Framing framing, int toolCalls, int bursts, long pauseMillis) throws IOException {
        return start(framing, toolCalls, bursts, pauseMillis, 0);
    }

    private static JdkServerMock start(Framing framing, int toolCalls, int bursts, long pauseMillis, int port)
            throws IOException {
        settings(true);
        // Read once, when the JDK server's class is first initialised: set before it is.
        if (System.getProperty(MAX_IDLE) == null) {
            System.setProperty(MAX_IDLE, "100000");
        }
        if (System.getProperty(IDLE_INTERVAL) == null) {
            System.setProperty(IDLE_INTERVAL, "600");
        }
        if (System.getProperty(NO_DELAY) == null) {
            System.setProperty(NO_DELAY, "true");
        }
        return new JdkServerMock(framing, toolCalls, bursts, pauseMillis, port, false);
    }

    /**
     * The comparison's mock (one tool call, then the answer, all at once) on a JDK server with
     * the JDK's defaults.
     *
     * @throws IllegalStateException when this process's JDK servers already run with other
     *                               settings: raised by {@link #start}, or given with {@code -D}
     */
    static JdkServerMock withDefaults(Framing framing) throws IOException {
        settings(false);
        DEFAULTS.forEach((name, value) -> {
            String set = System.getProperty(name);
            if (set != null && !set.equals(value)) {
                throw new IllegalStateException("the JDK server's defaults were asked for, but -D" + name + "=" + set
                        + " is set: run without it");
            }
        });
        return new JdkServerMock(framing, 1, 1, 0, 0, true);
    }

    /** Claims this process's JDK server settings, raised or the defaults, for good. */
    private static synchronized void settings(boolean raise) {
        if (raised == null) {
            raised = raise;
        } else if (raised != raise) {
            throw new IllegalStateException("the JDK server reads its settings once per process: the mocks with its"
                    + " defaults (jdk-defaults, jdk-defaults-chunked, jdk-defaults-shared) and with raised settings"
                    + " (jdk-length, jdk-chunked) cannot run in one process");
        }
    }

    private JdkServerMock(Framing framing, int toolCalls, int bursts, long pauseMillis, int port, boolean defaults)
            throws IOException {
        this.framing = framing;
        this.defaults = defaults;
        this.pauseMillis = pauseMillis;
        answers = new MockAnswers(toolCalls, bursts);
        for (MockAnswers.Answer answer : answers.all()) {
            List<List<String>> parts = answer.bursts();
            byte[][] bytes = new byte[parts.size()][];
            long length = 0;
            for (int part = 0; part < parts.size(); part++) {
                bytes[part] = String.join("", parts.get(part)).getBytes(StandardCharsets.UTF_8);
                length += bytes[part].length;
            }
            wire.put(answer, bytes);
            lengths.put(answer, length);
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 8192);
        executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    @Override
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    @Override
    public String name() {
        return "JDK HttpServer" + (defaults ? " with its defaults" : "") + ", " + framing;
    }

    @Override
    public void serving(String contestant) {
        serving = contestant;
    }

    @Override
    public int openConnections(String contestant) {
        if (!OpenConnections.available()) {
            return -1;
        }
        int open = 0;
        for (int port : OpenConnections.clientPorts(server.getAddress().getPort())) {
            if (contestant.equals(owners.get(port))) {
                open++;
            }
        }
        return open;
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

    /**
     * The next {@code count} chat requests are answered only once all of them came: that many
     * are in flight at once, so a client that sends them from {@code count} tasks needs that
     * many connections then (for tests: a warm-up that fills a client's pool without a timing).
     */
    void holdTogether(int count) {
        together = new CountDownLatch(count);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            if (exchange.getRequestMethod().equals("GET") && exchange.getRequestURI().getPath().equals("/stats")) {
                byte[] text = stats().getBytes(StandardCharsets.US_ASCII);
                exchange.getResponseHeaders().add("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, text.length);
                exchange.getResponseBody().write(text);
                return;
            }
            // Counted at a port's first chat request, so that the harness's own /stats
            // connections are not.
            int port = exchange.getRemoteAddress().getPort();
            if (clientPorts.add(port)) {
                connections.incrementAndGet();
                owners.put(port, serving);
            }
            requests.incrementAndGet();
            requestBodyBytes.addAndGet(body.length);
            CountDownLatch held = together;
            if (held != null && held.getCount() > 0) {
                held.countDown();
                held.await();
            }
            MockAnswers.Answer answer = answers.to(body);
            byte[][] parts = wire.get(answer);
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.getResponseHeaders().add("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, framing == Framing.LENGTH ? lengths.get(answer) : 0);
            OutputStream out = exchange.getResponseBody();
            for (int part = 0; part < parts.length; part++) {
                if (part > 0) {
                    Thread.sleep(pauseMillis);
                }
                out.write(parts[part]);
                out.flush();
            }
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
        }
    }

    private String stats() {
        return "connections=" + connections.get() + "\nrequests=" + requests.get()
                + "\nrequestBodyBytes=" + requestBodyBytes.get() + "\n";
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    /**
     * Runs the mock as a process of its own until its standard input ends, as
     * {@link LeanMock#main} does. Prints {@code listening PORT} once it accepts.
     *
     * <pre>
     * java -cp benchmarks.jar dev.bellows.bench.loop.JdkServerMock --framing length|chunked
     *     [--tool-calls 2] [--bursts 3] [--pause-ms 50] [--port 0]
     * </pre>
     */
    public static void main(String[] args) throws IOException {
        Framing framing = Framing.LENGTH;
        int toolCalls = 1;
        int bursts = 1;
        long pauseMillis = 0;
        int port = 0;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--framing" -> framing = Framing.parse(args[i + 1].toLowerCase(Locale.ROOT));
                case "--tool-calls" -> toolCalls = Integer.parseInt(args[i + 1]);
                case "--bursts" -> bursts = Integer.parseInt(args[i + 1]);
                case "--pause-ms" -> pauseMillis = Long.parseLong(args[i + 1]);
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try (JdkServerMock mock = start(framing, toolCalls, bursts, pauseMillis, port)) {
            System.out.println("listening " + mock.server.getAddress().getPort());
            System.out.flush();
            while (System.in.read() >= 0) {
                // Nothing is read from the harness: its end is the signal to stop.
            }
        }
    }
}
