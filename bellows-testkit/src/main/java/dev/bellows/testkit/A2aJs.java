package dev.bellows.testkit;

import dev.bellows.json.internal.Jackson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The official A2A JavaScript SDK ({@code @a2a-js/sdk}) as the interop partner of Bellows' A2A
 * tests: a test agent on the SDK's server ({@link #startServer}) and a driver of the SDK's client
 * ({@link #runClient}). Both scripts are resources of this class (their header comments say what
 * they do); the packages are installed into {@code .cache/a2a-js} with {@link NpmPackages}, and
 * the scripts are copied beside them so that node resolves the packages.
 *
 * <p>Thread-safe; the server and client processes are the caller's to close.
 */
public final class A2aJs {

    /** The SDK and the web framework its server needs, pinned. */
    public static final List<String> PACKAGES = List.of("@a2a-js/sdk@1.3.0", "express@5.3.0");

    static final String SERVER = "a2a-js-server.mjs";
    static final String CLIENT = "a2a-js-client.mjs";
    private static final Pattern URL_LINE = Pattern.compile("\\{\"url\":\"(http://127\\.0\\.0\\.1:\\d+)\"}");

    private A2aJs() {
    }

    /** Installs the packages (once) and writes the two scripts beside them; the folder. */
    public static Path install() {
        Path dir = NpmPackages.cacheDir("a2a-js");
        NpmPackages.install(dir, PACKAGES.toArray(String[]::new));
        for (String script : List.of(SERVER, CLIENT)) {
            copyScript(script, dir);
        }
        return dir;
    }

    private static void copyScript(String name, Path dir) {
        try (InputStream in = A2aJs.class.getResourceAsStream("a2a/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no resource a2a/" + name + " beside " + A2aJs.class.getName());
            }
            byte[] bytes = in.readAllBytes();
            Path target = dir.resolve(name);
            if (Files.isRegularFile(target) && java.util.Arrays.equals(Files.readAllBytes(target), bytes)) {
                return;
            }
            // Written aside and moved: another test JVM may be starting node on the old copy.
            Path temp = Files.createTempFile(dir, name, ".tmp");
            Files.write(temp, bytes);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + name + " into " + dir + ": " + e.getMessage(), e);
        }
    }

    private static Server shared;

    /**
     * The SDK's test agent with the default settings, started once per JVM for every test that
     * needs no settings of its own (a node process costs a second or two to start): do not
     * close it. It ends with the JVM, whose end closes its standard input.
     */
    public static synchronized Server shared() throws IOException {
        if (shared == null || !shared.process.isAlive()) {
            shared = startServer(Map.of());
        }
        return shared;
    }

    /**
     * Starts the SDK's test agent on 127.0.0.1 and waits until it listens.
     *
     * @param env extra environment ({@code A2A_TOKEN}, {@code PREFER}: see the script)
     */
    public static Server startServer(Map<String, String> env) throws IOException {
        Path dir = install();
        ProcessBuilder builder = new ProcessBuilder("node", SERVER).directory(dir.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        Server server = new Server(process);
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        Matcher matcher = line == null ? null : URL_LINE.matcher(line.strip());
        if (matcher == null || !matcher.matches()) {
            server.close();
            throw new IllegalStateException("the A2A test agent did not start: " + line + "; stderr: " + server.stderr());
        }
        server.url = matcher.group(1);
        return server;
    }

    /** The SDK's test agent, a node process; {@link #close()} ends it. */
    public static final class Server implements AutoCloseable {
        private final Process process;
        private final CompletableFuture<String> stderr;
        private volatile String url;

        private Server(Process process) {
            this.process = process;
            this.stderr = Background.supply(() -> read(process.getErrorStream()));
        }

        /** Its base URL, {@code http://127.0.0.1:PORT}: the card is at {@code /.well-known/agent-card.json}. */
        public String url() {
            return url;
        }

        /**
         * What the agent wrote to standard error so far is only known once it ended; this waits
         * for that (after {@link #close()}), at most 10 s.
         */
        public String stderr() {
            try {
                return stderr.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                return "(stderr not available: " + e + ")";
            }
        }

        /** Ends the agent: its standard input closes, which it takes as the end; killed if it lingers. */
        @Override
        public void close() {
            try {
                process.getOutputStream().close();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (IOException | InterruptedException e) {
                process.destroyForcibly();
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Runs the SDK's client driver against the agent at {@code baseUrl} through the steps
     * (a JSON array, see the script) and returns what it printed, one JSON line each.
     *
     * @param env     extra environment ({@code TRANSPORT}, {@code HEADERS})
     * @param input   what the driver reads at its {@code pause} steps, a line each (may be empty)
     * @param seconds how long it may take before it is killed and the test fails
     */
    public static ClientRun runClient(String baseUrl, String steps, Map<String, String> env, String input,
                                      long seconds) throws IOException, InterruptedException {
        Path dir = install();
        ProcessBuilder builder = new ProcessBuilder("node", CLIENT, baseUrl, steps).directory(dir.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        CompletableFuture<String> out = Background.supply(() -> read(process.getInputStream()));
        CompletableFuture<String> err = Background.supply(() -> read(process.getErrorStream()));
        try (OutputStream in = process.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        } catch (IOException ignored) {
            // it ended before reading: its output says why
        }
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            throw new AssertionError("the A2A client driver did not end in " + seconds + " s; its output: "
                    + out.getNow("") + "; stderr: " + err.getNow(""));
        }
        try {
            String printed = out.get(10, TimeUnit.SECONDS);
            List<String> lines = new ArrayList<>(printed.lines().filter(l -> !l.isBlank()).toList());
            return new ClientRun(process.exitValue(), List.copyOf(lines), err.get(10, TimeUnit.SECONDS));
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("cannot read the A2A client driver's output: " + e, e);
        }
    }

    /**
     * What the client driver printed.
     *
     * @param status its exit status
     * @param lines  its JSON lines, in order
     * @param stderr its standard error
     */
    public record ClientRun(int status, List<String> lines, String stderr) {

        /** The lines parsed, each a JSON object ({@code {"step": N, "op": OP, ...}}). */
        public List<tools.jackson.databind.JsonNode> json() {
            List<tools.jackson.databind.JsonNode> parsed = new ArrayList<>();
            for (String line : lines) {
                try {
                    parsed.add(JSON.readTree(line));
                } catch (tools.jackson.core.JacksonException e) {
                    throw new AssertionError("the A2A client driver printed a line that is not JSON: " + line, e);
                }
            }
            return parsed;
        }

        /**
         * The events the step {@code step} streamed, each as one word: {@code task:STATE} for the
         * task, {@code STATE} for a status update, {@code artifact:TEXT} for an artifact chunk (its
         * first part's text), {@code message:TEXT} for a message.
         */
        public List<String> events(int step) {
            return json().stream().filter(l -> l.path("step").asInt() == step && l.has("event"))
                    .map(l -> l.path("event")).map(e -> e.has("task") ? "task:" + e.at("/task/status/state").asString()
                            : e.has("statusUpdate") ? e.at("/statusUpdate/status/state").asString()
                            : e.has("artifactUpdate") ? "artifact:" + e.at("/artifactUpdate/artifact/parts/0/text").asString()
                            : "message:" + e.at("/message/parts/0/text").asString())
                    .toList();
        }
    }

    private static final tools.jackson.databind.ObjectMapper JSON = Jackson.JSON;

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
