package dev.bellows.mcp;

import dev.bellows.mcp.auth.OAuthConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One MCP server as the user configured it: a local process spoken to over stdio
 * ({@link Stdio}) or a remote server spoken to over Streamable HTTP ({@link StreamableHttp}).
 * The {@link #name()} is the {@code server_name} the model uses in its tool calls.
 *
 * <pre>{@code
 * McpServerConfig everything = McpServerConfig.stdio("everything", "npx")
 *         .args("-y", "@modelcontextprotocol/server-everything")
 *         .env("LOG_LEVEL", "warn")
 *         .build();
 * McpServerConfig remote = McpServerConfig.http("remote", "http://127.0.0.1:8931/mcp")
 *         .header("Authorization", "Bearer " + token)
 *         .callTimeout(Duration.ofMinutes(5))
 *         .restart(new RestartPolicy(10, Duration.ofSeconds(2), Duration.ofMinutes(1)))
 *         .build();
 * }</pre>
 *
 * <p>Values are immutable; {@code toString()} never shows environment values or header values,
 * which often hold secrets.
 */
public sealed interface McpServerConfig permits McpServerConfig.Stdio, McpServerConfig.StreamableHttp {

    /** How long a server may take to start and list its tools, unless configured otherwise. */
    Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(60);
    /** How long one tool call may take, unless configured otherwise. */
    Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(120);
    /** The most bytes of one message from a server, unless configured otherwise: 32 MiB. */
    int DEFAULT_MAX_MESSAGE_BYTES = 32 << 20;
    /** The least {@link #maxMessageBytes()} may be: 1 KiB. */
    int MIN_MAX_MESSAGE_BYTES = 1024;

    /** The server name: letters, digits, {@code _}, {@code -} and {@code .}; not {@code local}. */
    String name();

    /** The longest wait for the server to start, initialize and list its tools. */
    Duration startupTimeout();

    /** The longest wait for one tool call's answer; the call is then cancelled. */
    Duration callTimeout();

    /** How a server that does not start (at first, or after it stopped) is started again. */
    RestartPolicy restart();

    /**
     * The most bytes of one message from the server (a line on a stdio server's stdout, an HTTP
     * response body, one event of an event stream), read in bounded memory as it arrives: each
     * text (JSON string) of a message is cut to 2,000,000 characters, or a sixteenth of this
     * limit when that is fewer, the rest replaced by a note saying how many characters were cut;
     * a message still longer than this, or longer than 32 times this as sent, is not read on.
     * A stdio server that sends one is stopped (its stdout can no longer be read in step); over
     * HTTP the request it answers fails and the stream or connection that carried it is closed,
     * the session kept. Either way the error names the server and this limit.
     * {@link #DEFAULT_MAX_MESSAGE_BYTES} unless configured otherwise.
     */
    int maxMessageBytes();

    /** A builder for a server started as a local process, spoken to over its stdin and stdout. */
    static StdioBuilder stdio(String name, String command) {
        return new StdioBuilder(name, command);
    }

    /** A builder for a remote server spoken to over Streamable HTTP. */
    static HttpBuilder http(String name, String url) {
        return new HttpBuilder(name, url);
    }

    /**
     * A server started as a process. Its environment is the few variables a launcher needs from
     * Bellows' own ({@code PATH}, {@code HOME}, ... see {@link #INHERITED_ENV}) plus {@code env}:
     * the rest of Bellows' environment (API keys among it) is not passed on.
     *
     * @param command          the program, found on {@code PATH} when it has no slash
     * @param args             its arguments
     * @param env              variables added to its environment
     * @param workingDirectory where it runs; null for Bellows' own working directory
     * @param maxMessageBytes  the most bytes of one line on its stdout (see {@link McpServerConfig#maxMessageBytes()}),
     *                         at least {@link McpServerConfig#MIN_MAX_MESSAGE_BYTES}
     */
    record Stdio(String name, String command, List<String> args, Map<String, String> env, Path workingDirectory,
                 Duration startupTimeout, Duration callTimeout, RestartPolicy restart, int maxMessageBytes)
            implements McpServerConfig {

        /** The variables a server process gets from Bellows' environment, when set there. */
        public static final List<String> INHERITED_ENV = List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM",
                "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "NODE_PATH", "NODE_EXTRA_CA_CERTS",
                "npm_config_cache", "npm_config_registry", "SYSTEMROOT");

        public Stdio {
            checkName(name);
            Objects.requireNonNull(command, "command");
            if (command.isBlank()) {
                throw new IllegalArgumentException("server \"" + name + "\": the command is empty");
            }
            args = List.copyOf(Objects.requireNonNull(args, "args"));
            env = Map.copyOf(Objects.requireNonNull(env, "env"));
            checkTimeouts(name, startupTimeout, callTimeout);
            Objects.requireNonNull(restart, "restart");
            checkMaxMessageBytes(name, maxMessageBytes);
        }

        /** With messages of at most {@link #DEFAULT_MAX_MESSAGE_BYTES}. */
        public Stdio(String name, String command, List<String> args, Map<String, String> env, Path workingDirectory,
                     Duration startupTimeout, Duration callTimeout, RestartPolicy restart) {
            this(name, command, args, env, workingDirectory, startupTimeout, callTimeout, restart,
                    DEFAULT_MAX_MESSAGE_BYTES);
        }

        /** With the {@link RestartPolicy#DEFAULT} restart policy. */
        public Stdio(String name, String command, List<String> args, Map<String, String> env, Path workingDirectory,
                     Duration startupTimeout, Duration callTimeout) {
            this(name, command, args, env, workingDirectory, startupTimeout, callTimeout, RestartPolicy.DEFAULT);
        }

        @Override
        public String toString() {
            return "Stdio[" + name + ": " + command + " " + String.join(" ", args)
                    + (env.isEmpty() ? "" : ", env " + env.keySet().stream().sorted().toList())
                    + (workingDirectory == null ? "" : ", in " + workingDirectory) + "]";
        }
    }

    /**
     * A remote server.
     *
     * @param url     the MCP endpoint, {@code http} or {@code https}
     * @param headers sent with every request ({@code Authorization}, say: then no OAuth runs)
     * @param oauth   what cannot be discovered about its OAuth authorization;
     *                {@link OAuthConfig#DISCOVER} when nothing is configured
     * @param maxMessageBytes the most bytes of one response body or event (see
     *                        {@link McpServerConfig#maxMessageBytes()}), at least
     *                        {@link McpServerConfig#MIN_MAX_MESSAGE_BYTES}
     */
    record StreamableHttp(String name, URI url, Map<String, String> headers, Duration startupTimeout,
                          Duration callTimeout, RestartPolicy restart, OAuthConfig oauth, int maxMessageBytes)
            implements McpServerConfig {

        public StreamableHttp {
            checkName(name);
            Objects.requireNonNull(url, "url");
            String scheme = url.getScheme();
            if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null) {
                throw new IllegalArgumentException("server \"" + name + "\": the url must be an http:// or https:// URL "
                        + "with a host, like http://127.0.0.1:8931/mcp");
            }
            headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
            checkTimeouts(name, startupTimeout, callTimeout);
            Objects.requireNonNull(restart, "restart");
            oauth = oauth == null ? OAuthConfig.DISCOVER : oauth;
            checkMaxMessageBytes(name, maxMessageBytes);
        }

        /** With messages of at most {@link #DEFAULT_MAX_MESSAGE_BYTES}. */
        public StreamableHttp(String name, URI url, Map<String, String> headers, Duration startupTimeout,
                              Duration callTimeout, RestartPolicy restart, OAuthConfig oauth) {
            this(name, url, headers, startupTimeout, callTimeout, restart, oauth, DEFAULT_MAX_MESSAGE_BYTES);
        }

        /** Without OAuth configuration (everything is discovered when the server asks). */
        public StreamableHttp(String name, URI url, Map<String, String> headers, Duration startupTimeout,
                              Duration callTimeout, RestartPolicy restart) {
            this(name, url, headers, startupTimeout, callTimeout, restart, OAuthConfig.DISCOVER);
        }

        /** With the {@link RestartPolicy#DEFAULT} restart policy. */
        public StreamableHttp(String name, URI url, Map<String, String> headers, Duration startupTimeout,
                              Duration callTimeout) {
            this(name, url, headers, startupTimeout, callTimeout, RestartPolicy.DEFAULT);
        }

        /** Whether OAuth may run: no static {@code Authorization} header is configured. */
        public boolean usesOAuth() {
            return headers.keySet().stream().noneMatch(header -> header.equalsIgnoreCase("Authorization"));
        }

        @Override
        public String toString() {
            return "StreamableHttp[" + name + ": " + url.getScheme() + "://" + url.getAuthority() + url.getPath()
                    + (headers.isEmpty() ? "" : ", headers " + headers.keySet().stream().sorted().toList())
                    + (oauth.equals(OAuthConfig.DISCOVER) ? "" : ", " + oauth) + "]";
        }
    }

    /** Builds a {@link Stdio}. */
    final class StdioBuilder {
        private final String name;
        private final String command;
        private final List<String> args = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private Path workingDirectory;
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private RestartPolicy restart = RestartPolicy.DEFAULT;
        private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;

        private StdioBuilder(String name, String command) {
            this.name = name;
            this.command = command;
        }

        public StdioBuilder args(String... args) {
            return args(List.of(args));
        }

        public StdioBuilder args(List<String> args) {
            this.args.addAll(args);
            return this;
        }

        public StdioBuilder env(String name, String value) {
            this.env.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public StdioBuilder env(Map<String, String> env) {
            env.forEach(this::env);
            return this;
        }

        public StdioBuilder workingDirectory(Path directory) {
            this.workingDirectory = directory;
            return this;
        }

        public StdioBuilder startupTimeout(Duration timeout) {
            this.startupTimeout = timeout;
            return this;
        }

        public StdioBuilder callTimeout(Duration timeout) {
            this.callTimeout = timeout;
            return this;
        }

        /** How the server is started again when it does not start; {@link RestartPolicy#DEFAULT} unless set. */
        public StdioBuilder restart(RestartPolicy policy) {
            this.restart = policy;
            return this;
        }

        /** The most bytes of one message from the server (see {@link McpServerConfig#maxMessageBytes()}). */
        public StdioBuilder maxMessageBytes(int bytes) {
            this.maxMessageBytes = bytes;
            return this;
        }

        /** @throws IllegalArgumentException when a value is invalid; the message says which */
        public Stdio build() {
            return new Stdio(name, command, args, env, workingDirectory, startupTimeout, callTimeout, restart,
                    maxMessageBytes);
        }
    }

    /** Builds a {@link StreamableHttp}. */
    final class HttpBuilder {
        private final String name;
        private final String url;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private RestartPolicy restart = RestartPolicy.DEFAULT;
        private OAuthConfig oauth = OAuthConfig.DISCOVER;
        private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;

        private HttpBuilder(String name, String url) {
            this.name = name;
            this.url = url;
        }

        public HttpBuilder header(String name, String value) {
            this.headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public HttpBuilder headers(Map<String, String> headers) {
            headers.forEach(this::header);
            return this;
        }

        public HttpBuilder startupTimeout(Duration timeout) {
            this.startupTimeout = timeout;
            return this;
        }

        public HttpBuilder callTimeout(Duration timeout) {
            this.callTimeout = timeout;
            return this;
        }

        /** How the server is connected to again when it does not answer; {@link RestartPolicy#DEFAULT} unless set. */
        public HttpBuilder restart(RestartPolicy policy) {
            this.restart = policy;
            return this;
        }

        /** What cannot be discovered about the server's OAuth authorization; {@link OAuthConfig#DISCOVER} unless set. */
        public HttpBuilder oauth(OAuthConfig config) {
            this.oauth = Objects.requireNonNull(config, "config");
            return this;
        }

        /** The most bytes of one message from the server (see {@link McpServerConfig#maxMessageBytes()}). */
        public HttpBuilder maxMessageBytes(int bytes) {
            this.maxMessageBytes = bytes;
            return this;
        }

        /** @throws IllegalArgumentException when a value is invalid; the message says which */
        public StreamableHttp build() {
            URI uri;
            try {
                uri = new URI(Objects.requireNonNull(url, "url"));
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("server \"" + name + "\": the url is not a valid URL ("
                        + e.getReason() + ")");
            }
            return new StreamableHttp(name, uri, headers, startupTimeout, callTimeout, restart, oauth, maxMessageBytes);
        }
    }

    private static void checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (!name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("server name \"" + name + "\" may use only letters, digits, _, - and .");
        }
        if (name.equals("local")) {
            throw new IllegalArgumentException("server name \"local\" is reserved for Bellows' own tools; choose another");
        }
    }

    private static void checkMaxMessageBytes(String name, int maxMessageBytes) {
        if (maxMessageBytes < MIN_MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("server \"" + name + "\": the most bytes of a message must be at least "
                    + MIN_MAX_MESSAGE_BYTES + ", got " + maxMessageBytes);
        }
    }

    private static void checkTimeouts(String name, Duration startup, Duration call) {
        Objects.requireNonNull(startup, "startupTimeout");
        Objects.requireNonNull(call, "callTimeout");
        if (startup.isNegative() || startup.isZero() || call.isNegative() || call.isZero()) {
            throw new IllegalArgumentException("server \"" + name + "\": timeouts must be positive");
        }
    }
}
