package dev.bellows.agent;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import dev.bellows.event.LoopEndReason;
import dev.bellows.tool.ToolCall;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * An agent offered to another agent as a tool: the model calls it with one argument,
 * {@code task} (a string), the agent works on that task with its own instructions, tools and
 * limits, in a fresh session of its own (it never sees the caller's conversation), and its final
 * answer is the call's result.
 *
 * <pre>{@code
 * DefaultAgent researcher = DefaultAgent.builder().provider(provider).model("m")
 *         .instructions("You find facts.").build();
 * DefaultAgent lead = DefaultAgent.builder().provider(provider).model("m")
 *         .toolRegistry(new ToolRegistry().register(AgentTool.of("researcher", "Finds facts", researcher)))
 *         .build();
 * }</pre>
 *
 * <p>While it runs, each of its events reaches the calling run's listeners (and readers) as it
 * happens, as a {@link LoopEvent.SubAgentEvent} that names the agent and the id of the call
 * that runs it; a sub-agent's own sub-agents nest the same way, to any depth. Cancelling the
 * calling run cancels the sub-agent's run (its model request and tools). A sub-agent that ends
 * other than successfully (its iteration cap, its circuit breaker, an error, a call waiting for
 * approval) is a failed call the calling model reads.
 *
 * <p>Thread-safe: calls of it may run at the same time (each has its own session).
 */
public final class AgentTool implements Tool {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** What a call does with its task: runs one agent, or a workflow of agent tools. */
    @FunctionalInterface
    private interface Work {
        /** The answer to {@code task}; the events go to {@code caller} (null outside a run). */
        String run(String task, CallScope caller, ToolContext context) throws ToolException;
    }

    private final String name;
    private final String description;
    private final Work work;
    private final JsonNode schema;      // frozen

    private AgentTool(String name, String description, Work work) {
        this.name = name;
        this.description = description;
        this.work = work;
        ObjectNode schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putObject("properties").putObject("task").put("type", "string")
                .put("description", "What " + name + " should do: everything it needs to know, since it sees"
                        + " nothing of this conversation");
        schema.putArray("required").add("task");
        schema.put("additionalProperties", false);
        this.schema = FrozenJson.freeze(schema);
    }

    /**
     * {@code agent} as a tool named {@code name}.
     *
     * @param name        the tool's name, which also names the agent in its events: letters,
     *                    digits, {@code _} and {@code -}, at most 64
     * @param description what the agent does, for the calling model
     * @throws IllegalArgumentException for a name that is not one
     */
    public static AgentTool of(String name, String description, Agent agent) {
        Objects.requireNonNull(agent, "agent");
        return new AgentTool(checked(name), Objects.requireNonNull(description, "description"),
                (task, caller, context) -> runAgent(name, agent, task, caller, context));
    }

    /**
     * A workflow that is an agent: {@code steps} one after another, the task going to the first
     * and each one's answer being the next one's task; the last one's answer is its answer. The
     * steps' events reach the caller as each step's own (named after the step). A step that
     * fails ends it, failed.
     *
     * @throws IllegalArgumentException for a name that is not one, or no step
     */
    public static AgentTool sequence(String name, String description, List<AgentTool> steps) {
        List<AgentTool> copy = List.copyOf(steps);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("a sequence needs at least one agent");
        }
        return new AgentTool(checked(name), Objects.requireNonNull(description, "description"),
                (task, caller, context) -> {
                    String answer = task;
                    for (AgentTool step : copy) {
                        answer = step.work.run(answer, caller, context);
                    }
                    return answer;
                });
    }

    /**
     * A workflow that is an agent: {@code branches} at once on the same task (at most
     * {@code maxConcurrent} at a time), then {@code then} on their answers, each headed by its
     * agent's name ({@code ## NAME}); {@code then}'s answer is its answer (without {@code then},
     * the headed answers are). A branch that fails cancels the others and fails it; so does
     * cancelling the caller.
     *
     * @param then the agent that merges the answers, or null
     * @throws IllegalArgumentException for a name that is not one, no branch, or a bound below 1
     */
    public static AgentTool parallel(String name, String description, List<AgentTool> branches, AgentTool then,
                                     int maxConcurrent) {
        List<AgentTool> copy = List.copyOf(branches);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("a parallel workflow needs at least one agent");
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("maxConcurrent must be at least 1, not " + maxConcurrent);
        }
        return new AgentTool(checked(name), Objects.requireNonNull(description, "description"),
                (task, caller, context) -> {
                    String merged = Branches.run(copy, maxConcurrent, branch -> branch.work.run(task, caller, context),
                            AgentTool::name);
                    return then == null ? merged : then.work.run(merged, caller, context);
                });
    }

    /**
     * A workflow that is an agent: {@code body} again and again, the task going to its first
     * round and each round's answer being the next one's task, until {@code until} says an
     * answer will do or {@code maxRounds} rounds have run; the last answer is its answer. A round
     * that fails ends it, failed. {@code until} runs on the calling run's thread, where
     * {@link SharedState#current()} is the run's state.
     *
     * @throws IllegalArgumentException for a name that is not one, or fewer than 1 round
     */
    public static AgentTool loop(String name, String description, AgentTool body, Predicate<String> until,
                                 int maxRounds) {
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(until, "until");
        if (maxRounds < 1) {
            throw new IllegalArgumentException("a loop needs at least 1 round, not " + maxRounds);
        }
        return new AgentTool(checked(name), Objects.requireNonNull(description, "description"),
                (task, caller, context) -> {
                    String answer = task;
                    for (int round = 1; round <= maxRounds; round++) {
                        answer = body.work.run(answer, caller, context);
                        if (until.test(answer)) {
                            break;
                        }
                    }
                    return answer;
                });
    }

    /**
     * A workflow that is an agent: {@code pick} chooses, from the task, the name of the one of
     * {@code routes} that works on it, and that one's answer is its answer. A name that is none
     * of them fails it. {@code pick} runs on the calling run's thread, where
     * {@link SharedState#current()} is the run's state.
     *
     * @throws IllegalArgumentException for a name that is not one, no route, or two of a name
     */
    public static AgentTool router(String name, String description, List<AgentTool> routes,
                                   Function<String, String> pick) {
        Objects.requireNonNull(pick, "pick");
        List<AgentTool> copy = routes(routes);
        return new AgentTool(checked(name), Objects.requireNonNull(description, "description"),
                (task, caller, context) -> route(name, copy, pick.apply(task)).work.run(task, caller, context));
    }

    /**
     * A workflow that is an agent: {@code chooser}, an agent (a small model will do), is given the
     * task and the routes' names and descriptions and answers with the name of the one that
     * works on it; that one's answer is its answer. The chooser's events are marked with this
     * workflow's name. An answer that names none of them fails it.
     *
     * @throws IllegalArgumentException for a name that is not one, no route, or two of a name
     */
    public static AgentTool router(String name, String description, List<AgentTool> routes, Agent chooser) {
        Objects.requireNonNull(chooser, "chooser");
        List<AgentTool> copy = routes(routes);
        StringBuilder menu = new StringBuilder("Pick the agent that should work on the task below. Answer with"
                + " its name alone.\n\nThe agents:\n");
        copy.forEach(route -> menu.append("- ").append(route.name).append(": ").append(route.description).append('\n'));
        String asked = menu.append("\nThe task:\n").toString();
        return new AgentTool(checked(name), Objects.requireNonNull(description, "description"),
                (task, caller, context) -> {
                    String choice = runAgent(name, chooser, asked + task, caller, context);
                    return route(name, copy, choice).work.run(task, caller, context);
                });
    }

    private static List<AgentTool> routes(List<AgentTool> routes) {
        List<AgentTool> copy = List.copyOf(routes);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("a router needs at least one agent to pick from");
        }
        if (copy.stream().map(AgentTool::name).distinct().count() != copy.size()) {
            throw new IllegalArgumentException("a router's agents need names of their own");
        }
        return copy;
    }

    /** The route {@code choice} names: exactly, or as the one route name in a longer answer. */
    private static AgentTool route(String router, List<AgentTool> routes, String choice) throws ToolException {
        String said = choice == null ? "" : choice.strip().replaceAll("^[`'\"*]+|[`'\".*]+$", "");
        for (AgentTool route : routes) {
            if (route.name.equalsIgnoreCase(said)) {
                return route;
            }
        }
        List<AgentTool> named = routes.stream().filter(route -> Pattern.compile("\\b" + Pattern.quote(route.name)
                + "\\b", Pattern.CASE_INSENSITIVE).matcher(said).find()).toList();
        if (named.size() == 1) {
            return named.getFirst();
        }
        throw new ToolException(router + " could not pick an agent: \"" + (said.length() > 80 ? said.substring(0, 80)
                + "\u2026" : said) + "\" names none of " + String.join(", ", routes.stream().map(AgentTool::name).toList()));
    }

    /**
     * This agent or workflow as an {@link Agent} of its own, to run by itself (the CLI's
     * {@code --agent} naming a workflow): its run's events are {@code loop_start}, the events of
     * the agents it runs, each a {@link LoopEvent.SubAgentEvent} whose {@code parentCallId()} is
     * this tool's name (no model call runs them), and {@code loop_end} with its answer
     * ({@code task_completion}) or its failure ({@code error}). The agents it runs share the
     * session's {@linkplain Session#state() state}, and keep no conversation in it: each run starts
     * afresh. Cancelling the run cancels them.
     *
     * @param listeners hear each run's events as they happen, on the run's thread
     */
    public Agent asAgent(AgentListener... listeners) {
        List<AgentListener> heard = List.of(listeners);
        return new Agent() {
            @Override
            public AgentRun run(String task) {
                return run(task, new Session());
            }

            @Override
            public AgentRun run(String task, Session session) {
                Objects.requireNonNull(task, "task");
                Objects.requireNonNull(session, "session");
                RunHandle run = new RunHandle(heard);
                CallScope scope = new CallScope(name, null, run::emit, session.state(), session.tree());
                ToolContext context = new ToolContext(ToolCall.LOCAL_SERVER, name, run::isCancelled);
                Thread.ofVirtual().name("bellows-workflow-" + name).start(() -> LoopEnds.runBetweenStartAndEnd(run, task,
                        () -> run.runTools(() -> scope.enter(() -> {
                            try {
                                return new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, work.run(task, scope, context));
                            } catch (ToolException e) {
                                return run.isCancelled() ? LoopEnds.cancelled()
                                        : new LoopEvent.LoopEnd(LoopEndReason.ERROR, e.getMessage());
                            }
                        }))));
                return run.view();
            }

            @Override
            public String toString() {
                return "Agent[" + name + "]";
            }
        };
    }

    private static String checked(String name) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an agent tool's name is letters, digits, _ and - (at most 64): \""
                    + name + "\" is not");
        }
        return name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public JsonNode inputSchema() {
        return schema;
    }

    /** Parallel calls each run in a session of their own. */
    @Override
    public boolean parallelSafe() {
        return true;
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) throws ToolException {
        JsonNode task = arguments == null ? null : arguments.get("task");
        if (task == null || !task.isString() || task.asString().isBlank()) {
            throw new ToolException("\"task\" is required: a string saying what " + name + " should do");
        }
        return ToolResult.of(work.run(task.asString(), CallScope.current(), context));
    }

    /** Runs {@code agent} on {@code task} in a fresh session, passing its events on as they come. */
    private static String runAgent(String name, Agent agent, String task, CallScope caller, ToolContext context)
            throws ToolException {
        SharedState state = caller == null ? null : caller.state();
        AgentRun run = agent.run(task, state == null ? new Session() : Session.sharing(state, caller.tree()));
        String speaking = name;         // after a handoff inside it, the agent that took over
        try {
            for (AgentEvent event : run) {
                if (caller != null) {
                    caller.emit(new LoopEvent.SubAgentEvent(speaking, caller.callId, event));
                }
                if (event instanceof LoopEvent.Handoff handoff) {
                    speaking = handoff.to();
                }
                if (context.isCancelled()) {
                    run.cancel();
                }
            }
        } catch (CancellationException e) {
            // this thread was interrupted: the calling run was cancelled, and so is this one
            run.cancel();
            throw new ToolException(name + " was cancelled");
        }
        AgentResult result = run.await();
        if (result.reason().successful()) {
            return result.result();
        }
        throw new ToolException(name + " ended " + result.reason().wireName()
                + (result.result().isEmpty() ? "" : ": " + result.result()));
    }

    @Override
    public String toString() {
        return "AgentTool[" + name + "]";
    }
}
