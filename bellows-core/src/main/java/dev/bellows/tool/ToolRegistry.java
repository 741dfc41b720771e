package dev.bellows.tool;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * Every tool the model may call, grouped by server: local tools under {@code local} (or a
 * server name of your choice) and the tools of each {@link ToolSource}, such as an MCP server,
 * under the source's server name. The model calls a tool by (server, name).
 *
 * <pre>{@code
 * try (ToolRegistry tools = new ToolRegistry()
 *         .register(readFile)
 *         .register(writeFile)
 *         .addSource(everythingServer)) {
 *     tools.sourceFailures().forEach(f -> System.err.println(f));   // report, then carry on
 *     Tool tool = tools.lookup(call.serverName(), call.toolName()); // or an error for the model
 * }
 * }</pre>
 *
 * <h2>Names</h2>
 * Server names are non-empty and use letters, digits, {@code _}, {@code -} and {@code .};
 * {@code local} is reserved for tools registered directly. Tool names are non-blank and have
 * no whitespace or control characters; they are unique within their server. Breaking either
 * rule at registration is an {@link IllegalArgumentException} that says what to fix, as is
 * registering a (server, name) twice or adding a source under a server name already in use.
 *
 * <h2>Sources</h2>
 * A source's tools are listed once, when it is added ({@link #addSource}), so that a server
 * that fails to start is known at setup and the catalog given to the model is complete from
 * the first prompt. A source whose {@link ToolSource#tools()} throws (or lists something
 * unusable: a tool without a valid name, a name twice) does not break the registry: it is
 * kept under its server name but is <em>unavailable</em>. Its tools are left out of
 * {@link #tools()}, a {@link #lookup} on its server throws a {@link ToolException} saying the
 * server is unavailable and why, and {@link #sourceFailures()} reports it so that the CLI can
 * tell the user. Everything else works.
 *
 * <p>Each tool's input schema is compiled for argument checking when the tool is registered
 * or listed ({@link ArgumentSchema}), never per call. A local tool whose schema is broken is
 * refused at {@link #register} with an {@link InvalidSchemaException}; a source's tool whose
 * schema is broken is left out of {@link #tools()}, a call to it answers with the reason, and
 * {@link #toolFailures()} reports it; the source's other tools work.
 *
 * <p>A source that dies later (an MCP server process that exits): its tools keep answering
 * calls with {@link ToolException}s, which reach the model as errors. Whoever notices (the
 * CLI, the MCP module after a reconnect) calls {@link #refresh(String)}, which lists the
 * source's tools again: the server becomes available with the new list, or unavailable with
 * the new reason.
 *
 * <h2>Threads</h2>
 * Reads ({@link #lookup}, {@link #find}, {@link #tools()}, {@link #serverNames()},
 * {@link #sourceFailures()}) see an immutable snapshot published through a volatile field:
 * they take no lock and are safe from any number of threads (parallel tool calls), even
 * while someone registers. Changes are serialised by a lock, and each publishes a new
 * snapshot. A source's {@code tools()} is called outside that lock, so sources may be added
 * from several threads at once (MCP servers starting in parallel).
 *
 * <h2>Closing</h2>
 * {@link #close()} closes every source that was added, in reverse order, including the
 * unavailable ones (a server that failed to start may still hold a process). Failures do not
 * stop it; they are reported together afterwards. Closing twice does nothing. After closing,
 * nothing can be registered; reads still answer from the last snapshot.
 */
public final class ToolRegistry implements AutoCloseable {

    /** How many tool names of one server an {@link UnknownToolException}'s message lists. */
    static final int LISTED_PER_SERVER = 20;

    private static final Pattern SERVER_NAME = Pattern.compile("[A-Za-z0-9_.-]+");

    /**
     * One server as a snapshot holds it. {@code source} is null for tools registered directly;
     * {@code failure} is non-null when the source is unavailable (and {@code tools} is empty).
     */
    private record Server(String name, ToolSource source, Map<String, Tool> tools,
                          Map<String, ArgumentSchema> schemas, Map<String, ToolFailure> unusable,
                          SourceFailure failure) {

        boolean available() {
            return failure == null;
        }
    }

    private final Object lock = new Object();

    /** Immutable, servers in the order they were first registered. Replaced, never changed. */
    private volatile Map<String, Server> servers = Map.of();

    /** Bumped (under the lock) each time {@link #servers} is replaced; see {@link #version()}. */
    private volatile long version;

    /** Every source added, in order; guarded by {@link #lock}. */
    private final List<ToolSource> sources = new ArrayList<>();

    /** Guarded by {@link #lock}. */
    private boolean closed;

    /** An empty registry. */
    public ToolRegistry() {
    }

    /**
     * Registers every method of {@code target} annotated {@link dev.bellows.tool.annotation.Tool}
     * as a local tool ({@link MethodTools#of(Object)}).
     *
     * @throws IllegalArgumentException as {@link MethodTools#of(Object)} and {@link #register(Tool)} do
     */
    public ToolRegistry registerMethods(Object target) {
        MethodTools.of(target).forEach(this::register);
        return this;
    }

    /** Registers a local tool, on server {@code local}. */
    public ToolRegistry register(Tool tool) {
        return register(ToolCall.LOCAL_SERVER, tool);
    }

    /**
     * Registers a tool that runs in this process under the given server name.
     *
     * @throws IllegalArgumentException when a name is invalid, the server already has a tool of
     *                                  that name, or the server name belongs to a source
     * @throws IllegalStateException    when the registry is closed
     */
    public ToolRegistry register(String serverName, Tool tool) {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(tool, "tool");
        checkServerName(serverName);
        String name = checkToolName(tool.name(), serverName);
        ArgumentSchema schema;
        try {
            schema = argumentSchemaOf(tool);
        } catch (InvalidSchemaException e) {
            throw new InvalidSchemaException("tool \"" + name + "\" on server \"" + serverName
                    + "\" cannot be registered: " + e.getMessage(), e);
        }
        synchronized (lock) {
            checkOpen();
            Map<String, Server> snapshot = servers;
            Server existing = snapshot.get(serverName);
            if (existing != null && existing.source() != null) {
                throw new IllegalArgumentException("server \"" + serverName + "\" belongs to the tool source "
                        + existing.source() + "; register tool \"" + name + "\" under another server name");
            }
            if (existing != null && existing.tools().containsKey(name)) {
                throw new IllegalArgumentException("server \"" + serverName + "\" already has a tool named \"" + name
                        + "\"; tool names must be unique within a server (rename one, or register it on another server)");
            }
            Map<String, Tool> tools = existing == null ? new LinkedHashMap<>() : new LinkedHashMap<>(existing.tools());
            Map<String, ArgumentSchema> schemas = existing == null ? new LinkedHashMap<>()
                    : new LinkedHashMap<>(existing.schemas());
            tools.put(name, tool);
            schemas.put(name, schema);
            publish(new Server(serverName, null, Collections.unmodifiableMap(tools),
                    Collections.unmodifiableMap(schemas), Map.of(), null));
        }
        return this;
    }

    /**
     * Adds a source and lists its tools now. A source that cannot list them is kept as
     * unavailable (see {@link #sourceFailures()}) rather than thrown; the registry closes it
     * with the others.
     *
     * @throws IllegalArgumentException when the source's server name is invalid, is
     *                                  {@code local}, or is already in use; the caller still
     *                                  owns (and should close) a source that was rejected
     * @throws IllegalStateException    when the registry is closed
     */
    public ToolRegistry addSource(ToolSource source) {
        Objects.requireNonNull(source, "source");
        String serverName = source.serverName();
        if (serverName == null) {
            throw new IllegalArgumentException("tool source " + source + " has no server name");
        }
        if (serverName.equals(ToolCall.LOCAL_SERVER)) {
            throw new IllegalArgumentException("tool source " + source + " uses the server name \"local\", which is "
                    + "reserved for tools registered directly; give the source another name");
        }
        checkServerName(serverName);
        synchronized (lock) {
            checkOpen();
            checkServerFree(serverName);
        }
        // Outside the lock: listing may start a server process and take seconds.
        Server listed = list(serverName, source);
        synchronized (lock) {
            checkOpen();
            checkServerFree(serverName); // another thread may have taken the name meanwhile
            sources.add(source);
            publish(listed);
        }
        return this;
    }

    /**
     * Lists a source's tools again, for a source that died, restarted or changed its tools.
     * The server's tools are replaced by the new list, or the server becomes unavailable.
     *
     * @return the new failure, or empty when the source listed its tools
     * @throws IllegalArgumentException when no source has this server name
     * @throws IllegalStateException    when the registry is closed
     */
    public Optional<SourceFailure> refresh(String serverName) {
        Objects.requireNonNull(serverName, "serverName");
        ToolSource source;
        synchronized (lock) {
            checkOpen();
            Server server = servers.get(serverName);
            if (server == null) {
                throw new IllegalArgumentException("no server named \"" + serverName + "\"; servers: "
                        + String.join(", ", servers.keySet()));
            }
            if (server.source() == null) {
                throw new IllegalArgumentException("server \"" + serverName + "\" holds tools registered directly, "
                        + "not a tool source; there is nothing to refresh");
            }
            source = server.source();
        }
        Server listed = list(serverName, source);
        synchronized (lock) {
            checkOpen();
            publish(listed);
        }
        return Optional.ofNullable(listed.failure());
    }

    /**
     * The tool the model asked for.
     *
     * @throws UnknownToolException when the server or the tool does not exist; the message
     *                              names both, suggests a close name and lists what exists
     * @throws ToolException        when the server is an unavailable source; the message says why
     */
    public Tool lookup(String serverName, String toolName) throws ToolException {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Map<String, Server> snapshot = servers;
        Server server = snapshot.get(serverName);
        if (server != null && !server.available()) {
            throw new ToolException("tool \"" + toolName + "\" cannot be called: server \"" + serverName
                    + "\" is unavailable: " + server.failure().reason(), server.failure().cause());
        }
        if (server != null) {
            Tool tool = server.tools().get(toolName);
            if (tool != null) {
                return tool;
            }
            ToolFailure unusable = server.unusable().get(toolName);
            if (unusable != null) {
                throw new ToolException("tool \"" + toolName + "\" on server \"" + serverName
                        + "\" cannot be called: " + unusable.reason());
            }
        }
        throw unknown(snapshot, serverName, toolName);
    }

    /**
     * The compiled input schema of a tool, which is what calls are checked against; empty when
     * the tool does not exist or cannot be called.
     */
    public Optional<ArgumentSchema> argumentSchema(String serverName, String toolName) {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Server server = servers.get(serverName);
        return server == null ? Optional.empty() : Optional.ofNullable(server.schemas().get(toolName));
    }

    /**
     * The tools that available sources listed but that cannot be used (their input schema is
     * broken), in the order their sources were added. They are not in {@link #tools()}.
     */
    public List<ToolFailure> toolFailures() {
        List<ToolFailure> failures = new ArrayList<>();
        servers.values().forEach(server -> failures.addAll(server.unusable().values()));
        return List.copyOf(failures);
    }

    /** The tool, or empty when it does not exist or its server is unavailable. */
    public Optional<Tool> find(String serverName, String toolName) {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Server server = servers.get(serverName);
        return server == null ? Optional.empty() : Optional.ofNullable(server.tools().get(toolName));
    }

    /**
     * Every tool that can be called, grouped by server (servers in the order they were first
     * registered), each server's tools in registration (or listing) order. Unavailable
     * sources' tools are left out.
     */
    public List<RegisteredTool> tools() {
        List<RegisteredTool> all = new ArrayList<>();
        for (Server server : servers.values()) {
            server.tools().values().forEach(tool -> all.add(new RegisteredTool(server.name(), tool)));
        }
        return List.copyOf(all);
    }

    /** Every server name, in the order first registered, unavailable sources included. */
    /**
     * A number that changes whenever the registry's servers or tools change (a registration, a
     * source added or refreshed), so that what is built from the registry (a prompt's tool
     * catalog, say) can be kept until then instead of rebuilt for every model call.
     */
    public long version() {
        return version;
    }

    public List<String> serverNames() {
        return List.copyOf(servers.keySet());
    }

    /** The sources that are unavailable now, in the order they were added. */
    public List<SourceFailure> sourceFailures() {
        return servers.values().stream().filter(s -> !s.available()).map(Server::failure).toList();
    }

    /**
     * Closes every source, last added first, even when some fail or were unavailable.
     * Closing again does nothing.
     *
     * @throws IllegalStateException after closing them all, when some could not be closed:
     *                               its message names their servers and each failure is
     *                               attached as a suppressed exception
     */
    @Override
    public void close() {
        List<ToolSource> toClose;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(sources);
        }
        Collections.reverse(toClose);
        StringJoiner names = new StringJoiner(", ");
        List<Exception> failures = new ArrayList<>();
        for (ToolSource source : toClose) {
            try {
                source.close();
            } catch (Exception e) {
                names.add("server \"" + source.serverName() + "\" (" + reasonOf(e) + ")");
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            IllegalStateException failure = new IllegalStateException("could not close "
                    + (failures.size() == 1 ? "a tool source" : failures.size() + " tool sources") + ": " + names);
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /** The servers and how many tools each has: {@code ToolRegistry[local: 3 tools, mcp: unavailable]}. */
    @Override
    public String toString() {
        StringJoiner out = new StringJoiner(", ", "ToolRegistry[", "]");
        for (Server server : servers.values()) {
            int count = server.tools().size();
            out.add(server.name() + ": "
                    + (server.available() ? count + (count == 1 ? " tool" : " tools") : "unavailable"));
        }
        return out.toString();
    }

    // --- registration helpers ---

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the tool registry is closed");
        }
    }

    /** Called with the lock held. */
    private void checkServerFree(String serverName) {
        Server existing = servers.get(serverName);
        if (existing == null) {
            return;
        }
        if (existing.source() != null) {
            throw new IllegalArgumentException("server name \"" + serverName + "\" is already used by the tool source "
                    + existing.source() + "; each source needs its own server name");
        }
        throw new IllegalArgumentException("server name \"" + serverName + "\" already has tools registered directly ("
                + String.join(", ", existing.tools().keySet()) + "); give the source another server name");
    }

    /** Called with the lock held. */
    private void publish(Server server) {
        Map<String, Server> next = new LinkedHashMap<>(servers);
        next.put(server.name(), server); // an existing key keeps its place
        servers = Collections.unmodifiableMap(next);
        version++;
    }

    private static void checkServerName(String serverName) {
        if (serverName.isBlank()) {
            throw new IllegalArgumentException("server name must not be blank");
        }
        if (!SERVER_NAME.matcher(serverName).matches()) {
            throw new IllegalArgumentException("server name \"" + serverName
                    + "\" may only contain letters, digits, '_', '-' and '.'");
        }
    }

    private static String checkToolName(String name, String serverName) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a tool on server \"" + serverName
                    + "\" has a blank name; every tool needs a name the model can call it by");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                throw new IllegalArgumentException("tool name \"" + name + "\" on server \"" + serverName
                        + "\" must not contain whitespace or control characters");
            }
        }
        return name;
    }

    /** Asks a source for its tools; never throws: what goes wrong makes the server unavailable. */
    private static Server list(String serverName, ToolSource source) {
        List<Tool> listed;
        try {
            listed = source.tools();
        } catch (ToolException | RuntimeException e) {
            return unavailable(serverName, source, reasonOf(e), e);
        }
        if (listed == null) {
            return unavailable(serverName, source, "it listed no tools (tools() returned null)", null);
        }
        Map<String, Tool> tools = new LinkedHashMap<>();
        Map<String, ArgumentSchema> schemas = new LinkedHashMap<>();
        Map<String, ToolFailure> unusable = new LinkedHashMap<>();
        for (Tool tool : listed) {
            if (tool == null) {
                return unavailable(serverName, source, "it listed a null tool", null);
            }
            String name;
            try {
                name = checkToolName(tool.name(), serverName);
            } catch (RuntimeException e) {
                return unavailable(serverName, source, "it listed an unusable tool: " + reasonOf(e), e);
            }
            if (tools.containsKey(name) || unusable.containsKey(name)) {
                return unavailable(serverName, source, "it listed the tool \"" + name + "\" twice", null);
            }
            try {
                schemas.put(name, argumentSchemaOf(tool));
                tools.put(name, tool);
            } catch (InvalidSchemaException e) {
                unusable.put(name, new ToolFailure(serverName, name, "its input schema is broken: " + e.getMessage()));
            } catch (RuntimeException e) {
                unusable.put(name, new ToolFailure(serverName, name, "its input schema cannot be read: " + reasonOf(e)));
            }
        }
        return new Server(serverName, source, Collections.unmodifiableMap(tools), Collections.unmodifiableMap(schemas),
                Collections.unmodifiableMap(unusable), null);
    }

    private static Server unavailable(String serverName, ToolSource source, String reason, Exception cause) {
        return new Server(serverName, source, Map.of(), Map.of(), Map.of(), new SourceFailure(serverName, reason, cause));
    }

    /** Compiled once here, so that no call compiles it; a typed tool has compiled its own already. */
    private static ArgumentSchema argumentSchemaOf(Tool tool) {
        if (tool instanceof TypedTool<?, ?> typed) {
            return typed.argumentSchema();
        }
        tools.jackson.databind.JsonNode schema = tool.inputSchema();
        if (schema == null) {
            throw new InvalidSchemaException("the tool has no input schema (inputSchema() returned null)");
        }
        return ArgumentSchema.compile(schema);
    }

    /** A ToolException's message is written to be read; anything else also says what it was. */
    private static String reasonOf(Exception e) {
        String message = e.getMessage();
        if (e instanceof ToolException || e instanceof IllegalArgumentException) {
            return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
        }
        return message == null || message.isBlank()
                ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + message;
    }

    // --- the unknown-tool message, which the model reads ---

    private static UnknownToolException unknown(Map<String, Server> snapshot, String serverName, String toolName) {
        Map<String, List<String>> available = new LinkedHashMap<>();
        List<String> unavailable = new ArrayList<>();
        for (Server server : snapshot.values()) {
            if (server.available()) {
                available.put(server.name(), List.copyOf(server.tools().keySet()));
            } else {
                unavailable.add(server.name());
            }
        }
        boolean serverKnown = snapshot.containsKey(serverName);
        StringBuilder message = new StringBuilder();
        if (serverKnown) {
            message.append("unknown tool \"").append(toolName).append("\" on server \"").append(serverName).append('"');
        } else {
            message.append("unknown server \"").append(serverName).append("\" for tool \"").append(toolName).append('"');
        }
        suggestion(available, serverName, toolName, serverKnown)
                .ifPresent(s -> message.append(" (did you mean ").append(s).append("?)"));
        if (available.isEmpty()) {
            message.append("; no tools are available");
        } else {
            StringJoiner groups = new StringJoiner("; ", "; available: ", "");
            available.forEach((server, names) -> groups.add(server + ": " + listed(names)));
            message.append(groups);
        }
        if (!unavailable.isEmpty()) {
            message.append("; unavailable servers: ").append(String.join(", ", unavailable));
        }
        return new UnknownToolException(serverName, toolName, available, message.toString());
    }

    /** Names joined by commas, at most {@link #LISTED_PER_SERVER} of them, then "and N more". */
    private static String listed(List<String> names) {
        if (names.isEmpty()) {
            return "no tools";
        }
        if (names.size() <= LISTED_PER_SERVER) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, LISTED_PER_SERVER))
                + ", and " + (names.size() - LISTED_PER_SERVER) + " more";
    }

    /**
     * What the model most likely meant, phrased to follow "did you mean": the same name in
     * another case on the asked server; else the exact name on another server (the model chose
     * the wrong server); else a close name on the asked server; else a close name elsewhere;
     * else, for an unknown server, a close server name. Ties go to the first registered.
     */
    private static Optional<String> suggestion(Map<String, List<String>> available, String serverName,
                                               String toolName, boolean serverKnown) {
        String sameServer = null;
        int sameServerDistance = Integer.MAX_VALUE;
        if (serverKnown) {
            for (String name : available.getOrDefault(serverName, List.of())) {
                int distance = EditDistance.between(toolName, name);
                if (distance < sameServerDistance) {
                    sameServer = name;
                    sameServerDistance = distance;
                }
            }
        }
        if (sameServer != null && sameServerDistance == 0) {
            return Optional.of(quoted(sameServer));
        }
        for (Map.Entry<String, List<String>> server : available.entrySet()) {
            if (!server.getKey().equals(serverName) && server.getValue().contains(toolName)) {
                return Optional.of(quoted(toolName) + " on server " + quoted(server.getKey()));
            }
        }
        if (sameServer != null && sameServerDistance <= EditDistance.tolerance(toolName)) {
            return Optional.of(quoted(sameServer));
        }
        String elsewhere = null;
        String elsewhereServer = null;
        int elsewhereDistance = Integer.MAX_VALUE;
        for (Map.Entry<String, List<String>> server : available.entrySet()) {
            if (server.getKey().equals(serverName)) {
                continue;
            }
            for (String name : server.getValue()) {
                int distance = EditDistance.between(toolName, name);
                if (distance < elsewhereDistance) {
                    elsewhere = name;
                    elsewhereServer = server.getKey();
                    elsewhereDistance = distance;
                }
            }
        }
        if (elsewhere != null && elsewhereDistance <= EditDistance.tolerance(toolName)) {
            return Optional.of(quoted(elsewhere) + " on server " + quoted(elsewhereServer));
        }
        if (!serverKnown) {
            String closest = null;
            int closestDistance = Integer.MAX_VALUE;
            for (String server : available.keySet()) {
                int distance = EditDistance.between(serverName, server);
                if (distance < closestDistance) {
                    closest = server;
                    closestDistance = distance;
                }
            }
            if (closest != null && closestDistance <= EditDistance.tolerance(serverName)) {
                return Optional.of("server " + quoted(closest));
            }
        }
        return Optional.empty();
    }

    private static String quoted(String name) {
        return '"' + name + '"';
    }
}
