package dev.bellows.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The stdio transport: newline-delimited JSON-RPC messages over a server process's stdin and
 * stdout. The messages themselves are the SDK's ({@link McpSchema#deserializeJsonRpcMessage}
 * reads them, its mapper writes them, its client session does the protocol); this class only
 * moves lines.
 *
 * <p>Bellows has its own rather than the SDK's {@code StdioClientTransport} because that one
 * cannot set the working directory, keeps the process to itself (so a launcher's
 * grandchildren cannot be found and stopped), stops reading silently at the first line that
 * is not JSON, and does not notice the process exiting: a call to a server that died would
 * wait for its timeout. Here every way the process can go away completes {@link #ended()}
 * with a reason a user can act on, including the tail of its standard error.
 *
 * <p>Threads: one platform (daemon) thread each reads stdout, reads stderr, writes stdin (a
 * queue feeds it, so senders never block and no lock is held while writing) and waits for
 * the process to exit (see {@link #awaitExit}). Never virtual
 * threads: a read or write on a child's pipe blocks the thread that carries it, and the virtual
 * thread scheduler replaces a blocked carrier only for a while (its spare carrier retires after
 * 30 s idle). Past that, with as many pipes blocked as there are CPUs (one silent server on a
 * 2-CPU machine: its stdout and stderr), no virtual thread runs again: not the startup or call
 * timeouts, not the agent loop, not the shutdown. A platform thread per pipe costs a little
 * memory and never starves anything, whatever the number of servers.
 */
final class StdioTransport implements McpClientTransport {

    private static final Object STOP = new Object();

    private final McpServerConfig.Stdio config;
    private final McpJsonMapper mapper;
    private final Map<String, String> inheritedEnv;
    private final OutputTail stderr = new OutputTail();
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    private final BlockingQueue<Object> outbound = new LinkedBlockingQueue<>();
    private volatile Process process;
    private volatile boolean closing;
    /** The process could not be launched at all (not found, not executable, no such directory). */
    private volatile boolean launchFailed;
    private volatile Thread stderrReader;
    /** The process tree as last seen while it ran, to stop children a crashed launcher leaves behind. */
    private volatile List<ProcessHandle> knownTree = List.of();

    /**
     * @param inheritedEnv Bellows' environment, of which only {@link McpServerConfig.Stdio#INHERITED_ENV}
     *                     is passed on
     */
    StdioTransport(McpServerConfig.Stdio config, McpJsonMapper mapper, Map<String, String> inheritedEnv) {
        this.config = config;
        this.mapper = mapper;
        this.inheritedEnv = inheritedEnv;
    }

    /** Whether the process could not be launched at all: starting it again would fail the same way. */
    boolean launchFailed() {
        return launchFailed;
    }

    /** Completes, once, with why the connection is over: the process exited, wrote garbage, ... */
    CompletableFuture<String> ended() {
        return ended;
    }

    /** {@code "; stderr: ..."} with the last lines the server wrote there, or empty. */
    String stderrSuffix() {
        return stderr.suffix();
    }

    /** Notes the processes the server runs as now (a launcher's children appear after it starts). */
    void rememberTree() {
        Process started = process;
        if (started != null && started.isAlive()) {
            knownTree = ProcessTree.snapshot(started.toHandle());
        }
    }

    /** The process, once started. */
    Optional<ProcessHandle> process() {
        Process started = process;
        return started == null ? Optional.empty() : Optional.of(started.toHandle());
    }

    @Override
    public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
        return Mono.fromRunnable(() -> start(handler));
    }

    private void start(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
        if (process != null || ended.isDone()) {
            return;
        }
        List<String> command = new ArrayList<>();
        command.add(config.command());
        command.addAll(config.args());
        ProcessBuilder builder = new ProcessBuilder(command);
        if (config.workingDirectory() != null) {
            builder.directory(config.workingDirectory().toFile());
        }
        Map<String, String> env = builder.environment();
        env.clear();
        for (String name : McpServerConfig.Stdio.INHERITED_ENV) {
            String value = inheritedEnv.get(name);
            if (value != null) {
                env.put(name, value);
            }
        }
        env.putAll(config.env());
        Process started;
        try {
            started = builder.start();
        } catch (IOException e) {
            String reason = startFailure(e);
            launchFailed = true;
            end(reason);
            throw new McpTransportException(reason, e);
        }
        process = started;
        pipeThread("stdout").start(() -> readStdout(started, handler));
        stderrReader = pipeThread("stderr").start(() -> readStderr(started));
        pipeThread("stdin").start(() -> writeStdin(started));
        pipeThread("exit").start(() -> awaitExit(started));
    }

    /** A thread for one of the process's pipes: a platform thread (see the class comment), never keeping the JVM alive. */
    private Thread.Builder pipeThread(String pipe) {
        return Thread.ofPlatform().daemon().name("mcp-" + config.name() + "-" + pipe);
    }

    private String startFailure(IOException e) {
        if (config.workingDirectory() != null && !config.workingDirectory().toFile().isDirectory()) {
            return "working directory " + config.workingDirectory() + " does not exist";
        }
        String message = String.valueOf(e.getMessage());
        // The JDK's wording differs between versions: "error=2, No such file" or "error: 2 (No such file".
        if (message.contains("error=2,") || message.contains("error: 2 ")) {
            return "command \"" + config.command() + "\" not found"
                    + (config.command().contains("/") ? "" : " on PATH");
        }
        if (message.contains("error=13,") || message.contains("error: 13 ")) {
            return "command \"" + config.command() + "\" is not executable (permission denied)";
        }
        return "could not start \"" + config.command() + "\": " + message;
    }

    private void readStdout(Process started, Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
        try (InputStream stdout = started.getInputStream()) {
            // Bounded: a 50 MB result is cut as it arrives, never held whole (see BoundedLineReader).
            int maxMessageBytes = config.maxMessageBytes();
            BoundedLineReader reader = new BoundedLineReader(stdout, maxMessageBytes,
                    BoundedLineReader.maxStringChars(maxMessageBytes), BoundedLineReader.maxSentBytes(maxMessageBytes),
                    BoundedLineReader.Ends.LF);
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                if (line == BoundedLineReader.TOO_LONG) {
                    if (!closing) {
                        end("it wrote a message to stdout of " + reader.tooLongWhy() + " (the server's limit, "
                                + "maxMessageMiB)" + stderr.suffix());
                        Thread.ofVirtual().start(this::shutdown);
                    }
                    return;
                }
                JSONRPCMessage message;
                try {
                    message = McpSchema.deserializeJsonRpcMessage(mapper, line);
                } catch (IOException | RuntimeException e) {
                    if (!closing) {
                        end("it wrote a line to stdout that is not a JSON-RPC message (stdout is reserved for the "
                                + "protocol): \"" + excerpt(line) + "\"" + stderr.suffix());
                        Thread.ofVirtual().start(this::shutdown);
                    }
                    return;
                }
                handler.apply(Mono.just(message)).subscribe(ignored -> { }, error -> { });
            }
        } catch (IOException e) {
            // the pipe closed: the exit handler says why
        }
    }

    private void readStderr(Process started) {
        try (InputStream errors = started.getErrorStream()) {
            BoundedLineReader reader = new BoundedLineReader(errors, 4096, false); // the tail keeps 300 characters a line
            String line;
            while ((line = reader.readLine()) != null) {
                stderr.add(line);
            }
        } catch (IOException e) {
            // the pipe closed
        }
    }

    private void writeStdin(Process started) {
        OutputStream stdin = started.getOutputStream();
        try {
            while (true) {
                Object next = outbound.take();
                if (next == STOP) {
                    stdin.close();
                    return;
                }
                String json = mapper.writeValueAsString(next);
                stdin.write(json.getBytes(StandardCharsets.UTF_8));
                stdin.write('\n');
                stdin.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // The process closed its stdin, most likely by exiting: the exit handler says why
            // (with its exit status), so give it a moment to be seen exiting.
            try {
                started.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            if (!closing && started.isAlive()) {
                end("could not write to its stdin: " + e.getMessage() + stderr.suffix());
            }
        }
    }

    /**
     * Waits for the process to exit on a thread of its own. Not {@code Process.onExit()}: the
     * JDK completes that future from the common {@code ForkJoinPool}, which every
     * {@code CompletableFuture} of the application shares and which has a single worker on a
     * 2-CPU machine. One task blocked there (the application's, or an earlier server's exit
     * waiting for its stderr) and no server's exit was noticed any more: a server that quit at
     * once was reported as not starting within its startup timeout, a crashed one as a call
     * timeout. {@code waitFor} is woken by the JDK's process reaper directly.
     */
    private void awaitExit(Process started) {
        while (true) {
            try {
                started.waitFor();
                break;
            } catch (InterruptedException e) {
                // nothing interrupts this thread on purpose: the exit is still to be reported
            }
        }
        exited(started);
    }

    private void exited(Process started) {
        // What a launcher left running goes first: it holds the launcher's stderr open, so the
        // wait for stderr's last words below would otherwise last its whole bound, with the
        // orphan still running and the exit not yet reported.
        List<ProcessHandle> leftBehind = knownTree.stream().filter(ProcessHandle::isAlive).toList();
        if (!leftBehind.isEmpty()) {
            ProcessTree.destroy(leftBehind, 1000);
        }
        Thread reader = stderrReader;
        if (reader != null) {
            try {
                reader.join(5000); // let the last words of stderr arrive before quoting them (bounded: a child may hold it open)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int status = started.exitValue();
        end(closing ? "closed" : "the process exited with status " + status
                + (status > 128 && status < 160 ? " (killed by signal " + (status - 128) + ")" : "")
                + stderr.suffix());
        outbound.add(STOP);
    }

    private void end(String reason) {
        ended.complete(reason);
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
        if (ended.isDone()) {
            return Mono.error(new McpTransportException("the server is not running: " + ended.getNow("closed")));
        }
        outbound.add(message);
        return Mono.empty();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::shutdown);
    }

    @Override
    public void close() {
        shutdown();
    }

    /**
     * The MCP way to stop a stdio server: close its stdin, give it a moment to exit, then
     * SIGTERM and finally SIGKILL the whole tree, grandchildren included. Idempotent.
     */
    void shutdown() {
        shutdown(true);
    }

    /**
     * As {@link #shutdown()}, without the moment given to exit after stdin closes when
     * {@code graceful} is false: for a server that never finished starting, which has nothing
     * to finish, so that a failed start (or close during one) does not wait for it.
     */
    void shutdown(boolean graceful) {
        closing = true;
        Process started = process;
        if (started == null) {
            end("closed");
            return;
        }
        List<ProcessHandle> tree = new ArrayList<>(ProcessTree.snapshot(started.toHandle()));
        knownTree.stream().filter(p -> !tree.contains(p)).forEach(p -> tree.add(0, p));
        outbound.add(STOP);
        try {
            if (graceful) {
                started.waitFor(1500, TimeUnit.MILLISECONDS); // if still running, terminated below
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // The launcher may have exited on its own and left children: the snapshot still has them.
        ProcessTree.destroy(tree, 2000);
        end("closed");
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return mapper.convertValue(data, typeRef);
    }

    private static String excerpt(String line) {
        String stripped = line.strip();
        return stripped.length() > 80 ? stripped.substring(0, 80) + "…" : stripped;
    }
}
