package dev.bellows.agent;

import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The caller's registry as an agent sees it: its tools plus the built-ins it lacks, without
 * registering anything into it (so many agents, on many threads, may share one registry).
 * Each {@link #snapshot()} is a registry built from the caller's as it is now, so an MCP
 * server refreshed between two model calls shows up in the next one, and an unavailable
 * server answers with its own reason; while the caller's registry has not changed (its
 * {@link ToolRegistry#version()}), the last snapshot is reused, so that what is built from it
 * (the prompt's catalog) can be kept too.
 */
final class AgentTools {

    private final ToolRegistry callers;
    private final List<Tool> builtins;
    /** The last snapshot, kept while the caller's registry and the completion stay the same. */
    private volatile Cached cached;

    private record Cached(long version, Tool completion, ToolRegistry view) {
    }

    AgentTools(ToolRegistry callers, List<Tool> builtins) {
        this.callers = callers;
        this.builtins = List.copyOf(builtins);
    }

    /** A new snapshot, the caller's own to keep or change (for the agent's public accessors). */
    ToolRegistry snapshot() {
        return build(null);
    }

    /**
     * The loop's snapshot, in which {@code completion}, when given, is the run's own
     * {@code task_completion}: the last one while nothing changed. Shared between runs, so
     * never registered into.
     */
    ToolRegistry current(Tool completion) {
        // Read the version first: a change after it makes the next call build anew.
        long version = callers.version();
        Cached last = cached;
        if (last != null && last.version() == version && last.completion() == completion) {
            return last.view();
        }
        ToolRegistry view = build(completion);
        cached = new Cached(version, completion, view);
        return view;
    }

    /**
     * A run's own view: the current one plus {@code external}, the run's tools carried out
     * outside it, on the local server. Built once per run (and again only when the caller's
     * registry changes), never registered into the shared one.
     *
     * @throws IllegalArgumentException when an external tool's name is taken by a local tool
     */
    ToolRegistry withExternal(Tool completion, List<Tool> external) {
        ToolRegistry view = build(completion);
        for (Tool tool : external) {
            if (view.find(ToolCall.LOCAL_SERVER, tool.name()).isPresent()) {
                throw new IllegalArgumentException("the external tool \"" + tool.name() + "\" has the name of one of"
                        + " the agent's own tools: give it another name");
            }
            view.register(tool);
        }
        return view;
    }

    private ToolRegistry build(Tool completion) {
        Map<String, List<Tool>> byServer = new LinkedHashMap<>();
        callers.serverNames().forEach(name -> byServer.put(name, new ArrayList<>()));
        for (RegisteredTool tool : callers.tools()) {
            byServer.computeIfAbsent(tool.serverName(), k -> new ArrayList<>()).add(tool.tool());
        }
        Map<String, SourceFailure> failures = new LinkedHashMap<>();
        callers.sourceFailures().forEach(f -> failures.put(f.serverName(), f));
        ToolRegistry view = new ToolRegistry();
        byServer.forEach((server, tools) -> {
            SourceFailure failure = failures.get(server);
            if (failure != null) {
                view.addSource(new Unavailable(failure));
            } else {
                tools.stream().filter(tool -> completion == null || !isLocalCompletion(server, tool))
                        .forEach(tool -> view.register(server, tool));
            }
        });
        if (completion != null) {
            view.register(completion);
        }
        for (Tool tool : builtins) {
            if (view.find(ToolCall.LOCAL_SERVER, tool.name()).isEmpty()) {
                view.register(tool);
            }
        }
        return view;
    }

    private static boolean isLocalCompletion(String server, Tool tool) {
        return server.equals(ToolCall.LOCAL_SERVER) && tool.name().equals(dev.bellows.tool.BuiltinTools.TASK_COMPLETION);
    }

    /** The caller's unavailable server, failing the same way in the view. */
    private record Unavailable(SourceFailure failure) implements ToolSource {
        @Override
        public String serverName() {
            return failure.serverName();
        }

        @Override
        public List<Tool> tools() throws ToolException {
            throw new ToolException(failure.reason(), failure.cause());
        }
    }

    @Override
    public String toString() {
        return callers.toString();
    }
}
