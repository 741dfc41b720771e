package dev.bellows.testkit;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OpenAI-compatible chat endpoint on 127.0.0.1 that replays a {@link MockScript}: each
 * {@code POST /v1/chat/completions} (or {@code /chat/completions}) takes the next turn and
 * gets it as Server-Sent Events ({@code "stream": true}) or as one {@code chat.completion}.
 * Every request is recorded, API keys redacted. docs/mock-server.md describes the exact output.
 *
 * <pre>{@code
 * try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content("Hello")))) {
 *     URI base = server.baseUrl(); // http://127.0.0.1:PORT/v1
 *     ... point the client at base ...
 *     assertThat(server.requests()).hasSize(1);
 * }
 * }</pre>
 */
public final class MockLlmServer implements AutoCloseable {

    // Paths are logged, never headers: the recorded requests redact keys, the log leaves them out.
    private static final System.Logger LOG = System.getLogger(MockLlmServer.class.getName());


    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final InetAddress LOOPBACK = loopback();

    private final MockScript script;
    private final HttpServer server;
    private final ExecutorService executor;
    private final Clock clock;
    private final AtomicInteger nextTurn = new AtomicInteger();
    private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();
    private final Writer record;
    private final URI baseUrl;
    private final boolean repeat;
    private final java.util.function.Consumer<String> log;
    private final List<StreamHold> holds;

    private MockLlmServer(Builder builder) throws IOException {
        this.script = builder.script;
        this.holds = List.copyOf(builder.holds);
        for (StreamHold hold : holds) {
            if (hold.turn() >= script.turns().size() || script.turns().get(hold.turn()).isStatus()
                    || hold.pieces() > Pieces.parts(script.turns().get(hold.turn())).size()) {
                throw new IllegalArgumentException("a hold after " + hold.pieces() + " pieces of turn " + hold.turn()
                        + " (0 is the first) never holds: the script has no such turn, or it streams fewer pieces");
            }
        }
        this.clock = builder.clock;
        this.repeat = builder.repeat;
        this.log = builder.log;
        if (builder.port < 0 || builder.port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + builder.port);
        }
        this.record = builder.recordFile == null ? null
                : Files.newBufferedWriter(builder.recordFile, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        try {
            this.server = HttpServer.create(new InetSocketAddress(LOOPBACK, builder.port), 0);
        } catch (IOException e) {
            closeRecord();
            throw e;
        }
        this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("mock-llm-", 0).factory());
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        this.baseUrl = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
        LOG.log(System.Logger.Level.DEBUG, () -> "mock server listening on " + baseUrl + " with "
                + script.turns().size() + " scripted turns" + (repeat ? ", repeated" : ""));
    }

    /** Starts a server on a free port. */
    public static MockLlmServer start(MockScript script) throws IOException {
        return builder(script).start();
    }

    /**
     * Starts a server on this port (0: a free one).
     *
     * @throws java.net.BindException when the port is in use
     * @throws IllegalArgumentException when the port is not between 0 and 65535
     */
    public static MockLlmServer start(MockScript script, int port) throws IOException {
        return builder(script).port(port).start();
    }

    public static Builder builder(MockScript script) {
        return new Builder(script);
    }

    /** {@code http://127.0.0.1:PORT/v1}: the base URL for an OpenAI client. */
    public URI baseUrl() {
        return baseUrl;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public MockScript script() {
        return script;
    }

    /** Every request received so far, in order of arrival. */
    public List<RecordedRequest> requests() {
        return List.copyOf(requests);
    }

    /** How many turns requests have taken (at most the script's size, even when it repeats). */
    public int turnsTaken() {
        return Math.min(nextTurn.get(), script.turns().size());
    }

    /** Stops at once: open connections are closed, the record file is closed. */
    @Override
    public void close() {
        LOG.log(System.Logger.Level.DEBUG, () -> "mock server on " + baseUrl + " stopping after "
                + requests().size() + " requests");
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeRecord();
    }

    private void closeRecord() {
        if (record != null) {
            synchronized (record) {
                try {
                    record.close();
                } catch (IOException e) {
                    // nothing more to write
                }
            }
        }
    }

    // ---- requests

    private void handle(HttpExchange exchange) throws IOException {
        boolean cut = false;
        try {
            route(exchange);
        } catch (StreamCut e) {
            // Not closing the exchange: closing would finish the chunked encoding cleanly.
            // The server closes the connection itself when a handler fails mid-response.
            cut = true;
            throw e;
        } finally {
            if (!cut) {
                try {
                    exchange.close();
                } catch (RuntimeException e) {
                    // the client went away
                }
            }
        }
    }

    private void route(HttpExchange exchange) throws IOException {
        byte[] bytes;
        try (InputStream in = exchange.getRequestBody()) {
            bytes = in.readAllBytes();
        }
        String raw = new String(bytes, StandardCharsets.UTF_8);
        JsonNode body = parseBody(raw);
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        String route = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        // Every request is recorded before it is answered, so a client that has its answer
        // can rely on requests() holding its request.
        if (route.equals("/v1/chat/completions") || route.equals("/chat/completions")) {
            if (!method.equals("POST")) {
                record(exchange, method, path, body, raw, -1);
                log(method, path, "405, use POST");
                exchange.getResponseHeaders().set("Allow", "POST");
                sendJson(exchange, 405, error("method " + method + " not allowed on " + path + "; use POST",
                        "invalid_request_error"));
            } else if (body == null || !body.isObject()) {
                record(exchange, method, path, body, raw, -1);
                log(method, path, "400, the body is not a JSON object");
                sendJson(exchange, 400, error(raw.isBlank()
                        ? "the request body is empty; send a JSON object with model and messages"
                        : "the request body is not a JSON object: we could not parse your JSON body",
                        "invalid_request_error"));
            } else {
                int taken = nextTurn.getAndIncrement();
                int size = script.turns().size();
                int turn = repeat && size > 0 ? taken % size : taken;
                if (turn >= size) {
                    record(exchange, method, path, body, raw, -1);
                    log(method, path, "500, the script has no more turns (" + size + " were scripted)");
                    sendJson(exchange, 500, error("mock script has no more turns (" + size
                            + " were scripted)", "server_error"));
                } else {
                    record(exchange, method, path, body, raw, turn);
                    log(method, path, "turn " + (turn + 1) + " of " + size
                            + (repeat && taken >= size ? " (round " + (taken / size + 1) + ")" : ""));
                    answer(exchange, script.turns().get(turn), turn, (ObjectNode) body);
                }
            }
        } else if (route.equals("/v1/models") || route.equals("/models")) {
            record(exchange, method, path, body, raw, -1);
            log(method, path, method.equals("GET") ? "the model list" : "405, use GET");
            if (!method.equals("GET")) {
                exchange.getResponseHeaders().set("Allow", "GET");
                sendJson(exchange, 405, error("method " + method + " not allowed on " + path + "; use GET",
                        "invalid_request_error"));
            } else {
                sendJson(exchange, 200, models());
            }
        } else {
            record(exchange, method, path, body, raw, -1);
            log(method, path, "404, no such route");
            sendJson(exchange, 404, error("no route " + method + " " + path
                    + "; the mock serves POST /v1/chat/completions and GET /v1/models", "invalid_request_error"));
        }
    }

    /** One line per request for whoever asked ({@link Builder#log}): what came, and what it got. */
    private void log(String method, String path, String outcome) {
        // A query string may carry a key (?key=...): the log shows only that there was one.
        LOG.log(System.Logger.Level.DEBUG, () -> "mock server: " + method + " " + path.replaceFirst("\\?.*", "?...")
                + ": " + outcome);
        if (log != null) {
            log.accept(method + " " + path + ": " + outcome);
        }
    }

    private static JsonNode parseBody(String raw) {
        if (raw.isEmpty()) {
            return null;
        }
        try {
            return MAPPER.readTree(raw);
        } catch (JacksonException e) {
            return null;
        }
    }

    private void record(HttpExchange exchange, String method, String path, JsonNode body, String raw, int turn) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> {
            List<String> shown = new ArrayList<>();
            for (String value : values) {
                shown.add(RecordedRequest.isSecret(name) ? RecordedRequest.redact(value) : value);
            }
            headers.put(name, shown);
        });
        String query = exchange.getRequestURI().getRawQuery();
        JsonNode recordedBody = body != null ? body : raw.isEmpty() ? null : StringNode.valueOf(raw);
        RecordedRequest request = new RecordedRequest(method, query == null ? path : path + "?" + query,
                headers, recordedBody, turn);
        requests.add(request);
        if (record != null) {
            synchronized (record) {
                try {
                    record.write(MAPPER.writeValueAsString(request.toJson()));
                    record.write('\n');
                    record.flush();
                } catch (IOException e) {
                    // a failing record file must not fail the request; the list still has it
                }
            }
        }
    }

    private void answer(HttpExchange exchange, MockTurn turn, int index, ObjectNode request) throws IOException {
        if (turn.isStatus()) {
            answerStatus(exchange, turn);
            return;
        }
        JsonNode modelNode = request.get("model");
        String model = modelNode != null && modelNode.isString() ? modelNode.asString() : "mock";
        String id = "chatcmpl-mock-" + (index + 1);
        long created = clock.millis() / 1000;
        long promptTokens = promptTokens(request);
        if (request.path("stream").asBoolean(false) && request.get("stream").isBoolean()) {
            new SseAnswer(exchange, turn, index, holds, id, created, model, promptTokens).send();
        } else {
            sendJson(exchange, 200, completion(turn, id, created, model, promptTokens));
        }
    }

    private static void answerStatus(HttpExchange exchange, MockTurn turn) throws IOException {
        int status = turn.status();
        turn.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        boolean noBody = status < 200 || status == 204 || status == 304;
        if (noBody) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        byte[] bytes = MAPPER.writeValueAsBytes(turn.effectiveBody());
        if (!exchange.getResponseHeaders().containsKey("Content-Type")) {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** The estimate of docs/mock-server.md: the code points of every message's text content, / 4 rounded up. */
    private static long promptTokens(ObjectNode request) {
        long codePoints = 0;
        for (JsonNode message : request.path("messages")) {
            JsonNode content = message.path("content");
            if (content.isString()) {
                codePoints += Pieces.codePoints(content.asString());
            } else if (content.isArray()) {
                for (JsonNode part : content) {
                    if (part.path("text").isString()) {
                        codePoints += Pieces.codePoints(part.path("text").asString());
                    }
                }
            }
        }
        return Pieces.tokens(codePoints);
    }

    static ObjectNode usage(long promptTokens, long completionTokens) {
        ObjectNode usage = JsonNodeFactory.instance.objectNode();
        usage.put("prompt_tokens", promptTokens);
        usage.put("completion_tokens", completionTokens);
        usage.put("total_tokens", promptTokens + completionTokens);
        return usage;
    }

    private static ObjectNode completion(MockTurn turn, String id, long created, String model, long promptTokens) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("id", id);
        json.put("object", "chat.completion");
        json.put("created", created);
        json.put("model", model);
        ObjectNode choice = json.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        String content = turn.content() == null ? "" : turn.content();
        boolean cut = turn.cutAfter() != null;
        message.put("content", cut ? Pieces.prefix(content, turn.cutAfter()) : content);
        if (turn.reasoning() != null) {
            message.put("reasoning_content", turn.reasoning());
        }
        message.putNull("refusal");
        if (!turn.toolCalls().isEmpty() && !cut) {
            var calls = message.putArray("tool_calls");
            for (MockToolCall call : turn.toolCalls()) {
                ObjectNode item = calls.addObject().put("id", call.id()).put("type", "function");
                item.putObject("function").put("name", call.name()).put("arguments", call.arguments());
            }
        }
        choice.putNull("logprobs");
        // A cut turn cannot be cut without streaming: the answer is truncated, as max_tokens would.
        choice.put("finish_reason", cut ? "length" : turn.toolCalls().isEmpty() ? "stop" : "tool_calls");
        json.set("usage", usage(promptTokens, Pieces.completionTokens(turn)));
        return json;
    }

    private ObjectNode models() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("object", "list");
        ObjectNode model = json.putArray("data").addObject();
        model.put("id", "mock");
        model.put("object", "model");
        model.put("created", 0);
        model.put("owned_by", "bellows");
        return json;
    }

    static ObjectNode error(String message, String type) {
        ObjectNode error = JsonNodeFactory.instance.objectNode();
        error.put("message", message);
        error.put("type", type);
        error.putNull("param");
        error.putNull("code");
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.set("error", error);
        return json;
    }

    private static void sendJson(HttpExchange exchange, int status, JsonNode json) throws IOException {
        byte[] bytes = MAPPER.writeValueAsBytes(json);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One streamed answer: role chunk, reasoning pieces, content pieces, final chunk, [DONE]. */
    private static final class SseAnswer {
        private final HttpExchange exchange;
        private final MockTurn turn;
        private final int index;
        private final List<StreamHold> holds;
        private final String id;
        private final long created;
        private final String model;
        private final long promptTokens;
        private OutputStream out;
        private boolean first = true;

        SseAnswer(HttpExchange exchange, MockTurn turn, int index, List<StreamHold> holds, String id, long created,
                  String model, long promptTokens) {
            this.exchange = exchange;
            this.turn = turn;
            this.index = index;
            this.holds = holds;
            this.id = id;
            this.created = created;
            this.model = model;
            this.promptTokens = promptTokens;
        }

        void send() throws IOException {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0); // chunked: each event goes out as it is flushed
            out = exchange.getResponseBody();
            ObjectNode role = JsonNodeFactory.instance.objectNode();
            role.put("role", "assistant");
            role.put("content", "");
            event(role, null, null);
            List<Pieces.Part> parts = Pieces.parts(turn);
            for (int i = 0; i < parts.size(); i++) {
                Pieces.Part part = parts.get(i);
                hold(i);
                pause();
                ObjectNode delta = JsonNodeFactory.instance.objectNode();
                switch (part.kind()) {
                    case REASONING -> delta.put("reasoning_content", part.text());
                    case CONTENT -> delta.put("content", part.text());
                    case TOOL_CALL -> {
                        ObjectNode call = delta.putArray("tool_calls").addObject().put("index", part.index());
                        if (part.id() != null) {
                            call.put("id", part.id()).put("type", "function");
                        }
                        ObjectNode function = call.putObject("function");
                        if (part.name() != null) {
                            function.put("name", part.name());
                        }
                        function.put("arguments", part.text());
                    }
                }
                event(delta, null, null);
            }
            hold(parts.size());
            if (turn.cutAfter() != null) {
                // Leave the chunked encoding unfinished: the handler fails, and the server
                // closes the connection without the terminating chunk, as a dropped
                // connection would.
                throw new StreamCut();
            }
            event(JsonNodeFactory.instance.objectNode(), turn.toolCalls().isEmpty() ? "stop" : "tool_calls",
                    usage(promptTokens, Pieces.completionTokens(turn)));
            write("data: [DONE]\n\n");
            out.close();
        }

        /** Waits at a hold before piece {@code piece}; close() interrupts the wait. */
        private void hold(int piece) {
            for (StreamHold hold : holds) {
                try {
                    hold.await(index, piece, new java.util.concurrent.CompletableFuture<>());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StreamCut();
                }
            }
        }

        private void pause() throws IOException {
            if (first) {
                first = false;
                return;
            }
            if (turn.delayMs() > 0) {
                try {
                    Thread.sleep(turn.delayMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StreamCut();
                }
            }
        }

        private void event(ObjectNode delta, String finishReason, ObjectNode usage) throws IOException {
            ObjectNode chunk = JsonNodeFactory.instance.objectNode();
            chunk.put("id", id);
            chunk.put("object", "chat.completion.chunk");
            chunk.put("created", created);
            chunk.put("model", model);
            ObjectNode choice = chunk.putArray("choices").addObject();
            choice.put("index", 0);
            choice.set("delta", delta);
            choice.putNull("logprobs");
            if (finishReason == null) {
                choice.putNull("finish_reason");
            } else {
                choice.put("finish_reason", finishReason);
            }
            if (usage != null) {
                chunk.set("usage", usage);
            }
            write("data: " + MAPPER.writeValueAsString(chunk) + "\n\n");
        }

        private void write(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** Thrown out of the handler to drop the connection mid-stream. */
    private static final class StreamCut extends RuntimeException {
        StreamCut() {
            super("scripted cut_after: connection dropped mid-stream", null, false, false);
        }
    }

    /** Options of a server: port, record file, clock. */
    public static final class Builder {
        private final MockScript script;
        private int port;
        private Path recordFile;
        private Clock clock = Clock.systemUTC();
        private boolean repeat;
        private java.util.function.Consumer<String> log;
        private final List<StreamHold> holds = new ArrayList<>();

        private Builder(MockScript script) {
            this.script = Objects.requireNonNull(script, "script");
        }

        /** The port to listen on; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Appends every request to this file as one JSON line, flushed as it is written. */
        public Builder recordTo(Path file) {
            this.recordFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * When the turns run out, start again from the first, for ever (default: every later
         * chat request gets a 500 saying the script has no more turns).
         */
        public Builder repeat(boolean repeat) {
            this.repeat = repeat;
            return this;
        }

        /**
         * Receives one line per request, as it is answered: {@code POST /v1/chat/completions:
         * turn 2 of 3}. Nothing of the request's headers or body is in it. Called from the
         * server's threads, so it must be thread-safe.
         */
        public Builder log(java.util.function.Consumer<String> log) {
            this.log = Objects.requireNonNull(log, "log");
            return this;
        }

        /**
         * Holds a streamed turn after some of its pieces until the test releases it (see
         * {@link StreamHold}); a non-streamed answer is never held.
         *
         * @throws IllegalArgumentException from {@link #start()} when the script has no such
         *                                  turn or it streams fewer pieces
         */
        public Builder hold(StreamHold hold) {
            this.holds.add(Objects.requireNonNull(hold, "hold"));
            return this;
        }

        /** The clock of the {@code created} timestamps (fixed clocks make answers byte-stable). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Binds 127.0.0.1 and starts serving.
         *
         * @throws java.net.BindException when the port is in use
         * @throws IOException when the record file cannot be opened
         * @throws IllegalArgumentException when the port is out of range
         */
        public MockLlmServer start() throws IOException {
            return new MockLlmServer(this);
        }
    }
}
