package dev.bellows.cli;

import dev.bellows.a2a.client.RemoteAgentConfig;
import tools.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code "agents"} of a config file (cli.md, "Agents that work together"): model agents
 * and workflows by name, checked as a whole when the file is read, so that a name that does
 * not exist, a workflow that names itself or runs itself again through others, or an entry that
 * is neither kind is a usage error naming its path ({@code agents.both.then}) before anything runs.
 */
final class AgentsConfig {

    /** The values of {@code --agent} that are the loop's own, never a configured agent's name. */
    static final Set<String> BUILT_IN = Set.of("default", "react");

    enum Kind { DEFAULT, REACT, SEQUENCE, PARALLEL, LOOP, ROUTER }

    /**
     * One agent. For a model agent: its instructions, model, base URL, tools, MCP servers (each
     * null when the command line's), the agents it calls and those it hands off to. For a
     * workflow: its members (a loop's one agent, a router's routes), for a parallel one the agent
     * that merges their answers, for a router the agent that picks the route ({@code then}), and
     * for a loop the text that ends it ({@code until}, or null) and its most rounds.
     */
    record Spec(String name, Kind kind, String instructions, String model, String baseUrl, List<String> tools,
                List<String> mcpServers, List<String> agents, List<String> handoffs, List<String> members,
                String then, String until, int maxRounds) {

        Spec(String name, Kind kind, String instructions, String model, String baseUrl, List<String> tools,
             List<String> mcpServers, List<String> agents, List<String> handoffs, List<String> members, String then) {
            this(name, kind, instructions, model, baseUrl, tools, mcpServers, agents, handoffs, members, then, null, 0);
        }

        boolean workflow() {
            return kind != Kind.DEFAULT && kind != Kind.REACT;
        }

        /** The key of the file that names its members. */
        String membersKey() {
            return kind.name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The key of the file that names {@link #then()}: a parallel workflow's then, a router's chooser. */
        String thenKey() {
            return kind == Kind.ROUTER ? "chooser" : "then";
        }

        /** Every agent it may run: those it calls, hands off to, or runs as a workflow. */
        List<String> uses() {
            List<String> uses = new ArrayList<>(agents);
            uses.addAll(handoffs);
            uses.addAll(members);
            if (then != null) {
                uses.add(then);
            }
            return uses;
        }
    }

    static final AgentsConfig NONE = new AgentsConfig(Map.of(), Map.of());

    private static final Set<String> MODEL_KEYS = Set.of("instructions", "model", "base_url", "tools", "mcp_servers",
            "agents", "handoffs", "kind");
    private static final Set<String> WORKFLOW_KEYS = Set.of("sequence", "parallel", "then", "loop", "until",
            "max_rounds", "router", "chooser");
    /** The keys that make an entry a workflow, each its kind's. */
    private static final List<String> KINDS = List.of("sequence", "parallel", "loop", "router");
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final Map<String, Spec> agents;
    /** The remote A2A agents of the file's {@code "a2a"}, usable by name wherever a local agent's name goes. */
    private final Map<String, RemoteAgentConfig> remote;

    private AgentsConfig(Map<String, Spec> agents, Map<String, RemoteAgentConfig> remote) {
        this.agents = agents;
        this.remote = remote;
    }

    /** No local agent, the remote ones of {@code "a2a"}. */
    static AgentsConfig remoteOnly(List<RemoteAgentConfig> remote) {
        return remote.isEmpty() ? NONE : new AgentsConfig(Map.of(), byName(remote));
    }

    private static Map<String, RemoteAgentConfig> byName(List<RemoteAgentConfig> remote) {
        Map<String, RemoteAgentConfig> byName = new LinkedHashMap<>();
        remote.forEach(agent -> byName.put(agent.name(), agent));
        return java.util.Collections.unmodifiableMap(byName);
    }

    /** The remote agent of that name ({@code "a2a"}), or null. */
    RemoteAgentConfig remote(String name) {
        return remote.get(name);
    }

    /** The remote agents in the file's order. */
    Map<String, RemoteAgentConfig> remotes() {
        return remote;
    }

    /** Every agent's name, local then remote: for messages. */
    List<String> names() {
        List<String> names = new ArrayList<>(agents.keySet());
        names.addAll(remote.keySet());
        return names;
    }

    /** The agents in the file's order. */
    Map<String, Spec> agents() {
        return agents;
    }

    /** The agent of that name, or null. */
    Spec get(String name) {
        return agents.get(name);
    }

    /**
     * Reads and checks {@code "agents"}.
     *
     * @param label the file as messages name it
     * @param mcpServers the names of the file's MCP servers, which {@code mcp_servers} may name
     * @param remote     the file's remote agents ({@code "a2a"}), whose names the agents may use too
     */
    static AgentsConfig read(JsonNode node, String label, Set<String> mcpServers, List<RemoteAgentConfig> remote)
            throws UsageException {
        Map<String, RemoteAgentConfig> remotes = byName(remote);
        if (!node.isObject()) {
            throw new UsageException(label + ": agents: must be an object of agents by name");
        }
        Map<String, Spec> agents = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String name = field.getKey();
            String path = label + ": agents." + name;
            if (BUILT_IN.contains(name)) {
                throw new UsageException(path + ": \"" + name + "\" is a built-in value of --agent; give the agent"
                        + " another name");
            }
            if (!NAME.matcher(name).matches()) {
                throw new UsageException(path + ": an agent's name is letters, digits, _ and - (at most 64)");
            }
            if (remotes.containsKey(name)) {
                throw new UsageException(path + ": \"" + name + "\" names a remote agent of \"a2a\" too; give one of"
                        + " them another name");
            }
            agents.put(name, spec(name, field.getValue(), path, mcpServers));
        }
        AgentsConfig config = new AgentsConfig(java.util.Collections.unmodifiableMap(agents), remotes);
        config.checkNames(label);
        config.checkWorkflowCycles(label);
        return config;
    }

    private static Spec spec(String name, JsonNode value, String path, Set<String> mcpServers) throws UsageException {
        if (!value.isObject()) {
            throw new UsageException(path + ": must be an object: a model agent ({\"instructions\": ...}) or a workflow"
                    + " ({\"sequence\": [...]} or {\"parallel\": [...], \"then\": ...})");
        }
        List<String> kinds = KINDS.stream().filter(value::has).toList();
        boolean workflow = !kinds.isEmpty();
        for (Map.Entry<String, JsonNode> field : value.properties()) {
            String key = field.getKey();
            if (!MODEL_KEYS.contains(key) && !WORKFLOW_KEYS.contains(key)) {
                throw new UsageException(path + "." + key + ": unknown key (a model agent has "
                        + String.join(", ", MODEL_KEYS.stream().sorted().toList()) + "; a workflow sequence;"
                        + " parallel and then; loop, until and max_rounds; or router and chooser)");
            }
            if (kinds.size() > 1) {
                throw new UsageException(path + ": is neither a model agent nor one workflow: it has both \""
                        + kinds.get(0) + "\" and \"" + kinds.get(1) + "\"");
            }
            if (workflow && MODEL_KEYS.contains(key)) {
                throw new UsageException(path + ": is neither a model agent nor a workflow: it has both \"" + key
                        + "\" (a model agent's) and \"" + kinds.getFirst() + "\" (a workflow's)");
            }
        }
        String kindKey = workflow ? kinds.getFirst() : null;
        owns(value, path, "then", "parallel", kindKey, "only for a parallel workflow, whose answers it merges");
        owns(value, path, "until", "loop", kindKey, "only for a loop, which it ends");
        owns(value, path, "max_rounds", "loop", kindKey, "only for a loop, whose rounds it bounds");
        owns(value, path, "chooser", "router", kindKey, "only for a router, whose route it picks");
        if (workflow) {
            List<String> members = kindKey.equals("loop") ? List.of(text(value.get("loop"), path + ".loop"))
                    : names(value.get(kindKey), path + "." + kindKey);
            if (members.isEmpty()) {
                throw new UsageException(path + "." + kindKey + ": names no agent");
            }
            if (members.contains(name)) {
                throw new UsageException(path + "." + kindKey + ": names the workflow itself");
            }
            String thenKey = kindKey.equals("router") ? "chooser" : "then";
            String then = kindKey.equals("parallel") || kindKey.equals("router")
                    ? text(value.get(thenKey), path + "." + thenKey) : null;
            if (kindKey.equals("router") && then == null) {
                throw new UsageException(path + ".chooser: a router needs the agent that picks its route");
            }
            if (then != null && then.equals(name)) {
                throw new UsageException(path + "." + thenKey + ": names the workflow itself");
            }
            String until = kindKey.equals("loop") ? text(value.get("until"), path + ".until") : null;
            int rounds = kindKey.equals("loop") ? rounds(value.get("max_rounds"), path + ".max_rounds") : 0;
            Kind kind = Kind.valueOf(kindKey.toUpperCase(java.util.Locale.ROOT));
            return new Spec(name, kind, null, null, null, null, null, List.of(), List.of(), members, then, until,
                    rounds);
        }
        String kind = text(value.get("kind"), path + ".kind");
        if (kind != null && !BUILT_IN.contains(kind)) {
            throw new UsageException(path + ".kind: unknown kind (default or react)");
        }
        List<String> servers = value.has("mcp_servers") ? names(value.get("mcp_servers"), path + ".mcp_servers") : null;
        for (String server : servers == null ? List.<String>of() : servers) {
            if (!mcpServers.contains(server)) {
                throw new UsageException(path + ".mcp_servers: no MCP server \"" + server + "\" in mcpServers");
            }
        }
        return new Spec(name, "react".equals(kind) ? Kind.REACT : Kind.DEFAULT, text(value.get("instructions"),
                path + ".instructions"), text(value.get("model"), path + ".model"), text(value.get("base_url"),
                path + ".base_url"), value.has("tools") ? names(value.get("tools"), path + ".tools") : null, servers,
                value.has("agents") ? names(value.get("agents"), path + ".agents") : List.of(),
                value.has("handoffs") ? names(value.get("handoffs"), path + ".handoffs") : List.of(), List.of(), null);
    }

    /** {@code key}, when there, belongs to workflows of {@code kind} alone. */
    private static void owns(JsonNode value, String path, String key, String kind, String kindKey, String why)
            throws UsageException {
        if (value.has(key) && !kind.equals(kindKey)) {
            throw new UsageException(path + "." + key + ": " + why);
        }
    }

    /** A loop's most rounds: a whole number from 1. */
    private static int rounds(JsonNode value, String path) throws UsageException {
        if (value == null || value.isNull()) {
            throw new UsageException(path + ": a loop needs its most rounds (a whole number from 1)");
        }
        if (!value.isInt() || value.asInt() < 1) {
            throw new UsageException(path + ": must be a whole number from 1");
        }
        return value.asInt();
    }

    private static String text(JsonNode value, String path) throws UsageException {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString() || value.asString().isBlank()) {
            throw new UsageException(path + ": must be a non-empty string");
        }
        return value.asString();
    }

    private static List<String> names(JsonNode value, String path) throws UsageException {
        if (!value.isArray()) {
            throw new UsageException(path + ": must be an array of names");
        }
        List<String> names = new ArrayList<>();
        for (JsonNode item : value) {
            if (!item.isString() || item.asString().isBlank()) {
                throw new UsageException(path + ": must be an array of names");
            }
            if (names.contains(item.asString())) {
                throw new UsageException(path + ": names \"" + item.asString() + "\" twice");
            }
            names.add(item.asString());
        }
        return List.copyOf(names);
    }

    /** Every name an agent uses is an agent of the file. */
    private void checkNames(String label) throws UsageException {
        for (Spec spec : agents.values()) {
            check(label, spec, "agents", spec.agents());
            check(label, spec, "handoffs", spec.handoffs());
            check(label, spec, spec.membersKey(), spec.members());
            if (spec.then() != null) {
                check(label, spec, spec.thenKey(), List.of(spec.then()));
            }
        }
    }

    private void check(String label, Spec spec, String key, List<String> names) throws UsageException {
        for (String name : names) {
            if (!agents.containsKey(name) && !remote.containsKey(name)) {
                throw new UsageException(label + ": agents." + spec.name() + "." + key + ": no agent \"" + name
                        + "\" (the agents: " + String.join(", ", names()) + ")");
            }
        }
    }

    /**
     * A workflow runs its members whatever happens, so a workflow that comes back to itself
     * through other workflows would run until the depth limit cut it, every time: refused. Model
     * agents that may call each other are not: their models decide, and {@code --max-depth}
     * bounds them.
     */
    private void checkWorkflowCycles(String label) throws UsageException {
        for (Spec spec : agents.values()) {
            if (spec.workflow()) {
                List<String> path = new ArrayList<>(List.of(spec.name()));
                String cycle = cycle(spec, spec.name(), path);
                if (cycle != null) {
                    throw new UsageException(label + ": agents." + spec.name() + ": the workflows run each other"
                            + " without end: " + cycle);
                }
            }
        }
    }

    private String cycle(Spec at, String start, List<String> path) {
        List<String> next = new ArrayList<>(at.members());
        if (at.then() != null) {
            next.add(at.then());
        }
        for (String name : next) {
            Spec member = agents.get(name);
            if (name.equals(start)) {
                return String.join(" -> ", path) + " -> " + name;
            }
            if (member != null && member.workflow() && !path.contains(name)) {   // null: a remote agent
                path.add(name);
                String found = cycle(member, start, path);
                if (found != null) {
                    return found;
                }
                path.removeLast();
            }
        }
        return null;
    }
}
