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
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.ToolCall;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
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
 * other than successfully (its iteration cap, its circuit breaker, an error) is a failed call the
 * calling model reads. A sub-agent ({@link DefaultAgent} or {@link ReActAgent}, or a
 * {@link ResumableAgent} of another kind) that stops at calls waiting for a decision suspends the
 * call ({@link ToolSuspended}): the whole calling run
 * waits, its waiting calls named {@code CALLID/THEIRS}, and the decisions carry the sub-agent on
 * where it stopped ({@link ResumableTool}), in this process or another; its state is kept in the
 * calling run's waiting run (docs/agents.md shows its form).
 *
 * <p>Thread-safe: calls of it may run at the same time (each has its own session).
 */
public final class AgentTool implements ResumableTool {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** What a call does with its task: runs one agent, or a workflow of agent tools. */
    private interface Work {
        /**
         * The answer to {@code task}; the events go to {@code caller} (null outside a run).
         *
         * @throws ToolSuspended when a sub-agent waits for decisions
         */
        String run(String task, CallScope caller, ToolContext context) throws ToolException;

        /** The answer, carrying on where {@link #run} suspended (as {@link ResumableTool#resume}). */
        String resume(Resumption resumption, CallScope caller, ToolContext context) throws ToolException;

        /** Lets go of what a suspension of {@link #run} holds: its run is given up ({@link ResumableTool#giveUp}). */
        void giveUp(Resumption resumption, CallScope caller);
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
                new SubAgent(name, agent));
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
        return new AgentTool(checked(name), Objects.requireNonNull(description, "description"), new Sequence(copy));
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
                new Parallel(copy, then, maxConcurrent));
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
                new Rounds(body, until, maxRounds));
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
                new Router(name, copy, pick, null, null));
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
                new Router(name, copy, null, new SubAgent(name, chooser), asked));
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
                            } catch (ToolSuspended waits) {
                                // no calling run keeps the state: a workflow run by itself cannot wait
                                return new LoopEvent.LoopEnd(LoopEndReason.ERROR, name + " stopped "
                                        + waits.getMessage() + ", which a workflow run as an agent by itself"
                                        + " cannot wait for: run it as a tool of an agent to decide");
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

    @Override
    public ToolResult<?> resume(ToolContext context, JsonNode arguments, Resumption resumption) throws ToolException {
        return ToolResult.of(work.resume(resumption, CallScope.current(), context));
    }

    /** The waiting sub-agents give their waiting runs up too (a remote agent's task is cancelled). */
    @Override
    public void giveUp(ToolContext context, JsonNode arguments, Resumption resumption) {
        work.giveUp(resumption, CallScope.current());
    }

    /** One agent: a fresh session per call; a call that waits keeps the session in its state. */
    private record SubAgent(String name, Agent agent) implements Work {

        @Override
        public String run(String task, CallScope caller, ToolContext context) throws ToolException {
            Session session = sharing(caller);
            return finish(name, agent, agent.run(task, session), session, caller, context);
        }

        @Override
        public String resume(Resumption resumption, CallScope caller, ToolContext context) throws ToolException {
            DefaultAgent resumable = resumable(agent);
            if (resumable == null && !(agent instanceof ResumableAgent)) {
                throw new ToolException(name + " cannot carry on a waiting run");
            }
            Session session = resumable == null ? sharing(caller)
                    : SubAgentState.read(resumption, name, sharing(caller));
            AgentRun run;
            try {
                run = resumable != null ? resumable.resume(session, resumption.decisions())
                        : ((ResumableAgent) agent).resume(resumption, session);
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new ToolException(name + " could not carry on: " + e.getMessage(), e);
            }
            return finish(name, agent, run, session, caller, context);
        }

        /** A loop gives its waiting run up; a {@link ResumableAgent} is resumed with the denials (it lets go). */
        @Override
        public void giveUp(Resumption resumption, CallScope caller) {
            DefaultAgent resumable = resumable(agent);
            if (resumable != null) {
                String reason = resumption.decisions().stream().filter(d -> d instanceof Decision.Deny)
                        .map(d -> ((Decision.Deny) d).reason()).findFirst().orElse("the run was given up");
                try {
                    resumable.cancelWaiting(SubAgentState.read(resumption, name, sharing(caller)), reason);
                } catch (ToolException damaged) {
                    // a state that cannot be read holds nothing to let go of
                }
            } else if (agent instanceof ResumableAgent own) {
                own.resume(resumption, sharing(caller)).await();
            }
        }
    }

    /**
     * A fresh session for a sub-agent: in a call of a run, one sharing the run's state and tree
     * budgets ({@link SharedState}, {@link Limits}).
     */
    private static Session sharing(CallScope caller) {
        SharedState state = caller == null ? null : caller.state();
        return state == null ? new Session() : Session.sharing(state, caller.tree());
    }

    /** The loop under {@code agent} that can stop and carry on, or null for an agent of another kind. */
    static DefaultAgent resumable(Agent agent) {
        return switch (agent) {
            case DefaultAgent loop -> loop;
            case ReActAgent react -> react.agent();
            default -> null;
        };
    }

    /** Steps one after another, each answer the next one's task; a step that waits suspends the sequence there. */
    private record Sequence(List<AgentTool> steps) implements Work {

        @Override
        public String run(String task, CallScope caller, ToolContext context) throws ToolException {
            return from(0, task, caller, context);
        }

        @Override
        public String resume(Resumption resumption, CallScope caller, ToolContext context) throws ToolException {
            JsonNode state = resumption.state();
            int step = state.path("step").asInt(-1);
            if (step < 0 || step >= steps.size() || !state.has("inner")) {
                throw new ToolException("the sequence's waiting state is damaged: " + state);
            }
            String answer;
            try {
                answer = steps.get(step).work.resume(new Inner(resumption, state.get("inner")), caller, context);
            } catch (ToolSuspended waits) {
                throw at(step, waits);
            }
            return from(step + 1, answer, caller, context);
        }

        @Override
        public void giveUp(Resumption resumption, CallScope caller) {
            int step = resumption.state().path("step").asInt(-1);
            if (step >= 0 && step < steps.size()) {
                steps.get(step).work.giveUp(new Inner(resumption, resumption.state().path("inner")), caller);
            }
        }

        private String from(int first, String task, CallScope caller, ToolContext context) throws ToolException {
            String answer = task;
            for (int i = first; i < steps.size(); i++) {
                try {
                    answer = steps.get(i).work.run(answer, caller, context);
                } catch (ToolSuspended waits) {
                    throw at(i, waits);
                }
            }
            return answer;
        }

        /** Step {@code step}'s suspension as the sequence's: only one step waits, so the ids stay its own. */
        private static ToolSuspended at(int step, ToolSuspended waits) {
            ObjectNode state = JsonNodeFactory.instance.objectNode().put("step", step);
            state.set("inner", waits.state());
            return new ToolSuspended(state, waits.waiting());
        }
    }

    /**
     * {@code body} round after round, each answer the next round's task, until {@code until} takes
     * an answer or {@code maxRounds} have run. A round that waits suspends the loop there (its
     * ids its own: one round waits at a time). State: {@code {"round": R, "inner": STATE}}, R
     * counted from 1.
     */
    private record Rounds(AgentTool body, Predicate<String> until, int maxRounds) implements Work {

        @Override
        public String run(String task, CallScope caller, ToolContext context) throws ToolException {
            return from(1, task, caller, context);
        }

        @Override
        public String resume(Resumption resumption, CallScope caller, ToolContext context) throws ToolException {
            JsonNode state = resumption.state();
            int round = state.path("round").asInt(0);
            if (round < 1 || round > maxRounds || !state.has("inner")) {
                throw new ToolException("the loop's waiting state is damaged: " + state);
            }
            String answer;
            try {
                answer = body.work.resume(new Inner(resumption, state.get("inner")), caller, context);
            } catch (ToolSuspended waits) {
                throw at(round, waits);
            }
            return until.test(answer) ? answer : from(round + 1, answer, caller, context);
        }

        @Override
        public void giveUp(Resumption resumption, CallScope caller) {
            body.work.giveUp(new Inner(resumption, resumption.state().path("inner")), caller);
        }

        private String from(int first, String task, CallScope caller, ToolContext context) throws ToolException {
            String answer = task;
            for (int round = first; round <= maxRounds; round++) {
                try {
                    answer = body.work.run(answer, caller, context);
                } catch (ToolSuspended waits) {
                    throw at(round, waits);
                }
                if (until.test(answer)) {
                    break;
                }
            }
            return answer;
        }

        private static ToolSuspended at(int round, ToolSuspended waits) {
            ObjectNode state = JsonNodeFactory.instance.objectNode().put("round", round);
            state.set("inner", waits.state());
            return new ToolSuspended(state, waits.waiting());
        }
    }

    /**
     * Picks one of {@code routes} ({@code pick} on the task, or the {@code chooser} agent asked
     * {@code asked} and the task) and runs it. A waiting chooser or route suspends the router (the
     * ids their own): state {@code {"task": TASK, "chooser": STATE}} while the chooser waits,
     * {@code {"route": NAME, "inner": STATE}} while the route does.
     */
    private record Router(String name, List<AgentTool> routes, Function<String, String> pick, SubAgent chooser,
                          String asked) implements Work {

        @Override
        public String run(String task, CallScope caller, ToolContext context) throws ToolException {
            String choice;
            if (chooser == null) {
                choice = pick.apply(task);
            } else {
                try {
                    choice = chooser.run(asked + task, caller, context);
                } catch (ToolSuspended waits) {
                    ObjectNode state = JsonNodeFactory.instance.objectNode().put("task", task);
                    state.set("chooser", waits.state());
                    throw new ToolSuspended(state, waits.waiting());
                }
            }
            return routed(route(name, routes, choice), task, caller, context);
        }

        @Override
        public String resume(Resumption resumption, CallScope caller, ToolContext context) throws ToolException {
            JsonNode state = resumption.state();
            if (chooser != null && state.path("task").isString() && state.has("chooser")) {
                String choice;
                try {
                    choice = chooser.resume(new Inner(resumption, state.get("chooser")), caller, context);
                } catch (ToolSuspended waits) {
                    ObjectNode again = JsonNodeFactory.instance.objectNode().put("task", state.get("task").asString());
                    again.set("chooser", waits.state());
                    throw new ToolSuspended(again, waits.waiting());
                }
                return routed(route(name, routes, choice), state.get("task").asString(), caller, context);
            }
            String named = state.path("route").asString(null);
            AgentTool route = routes.stream().filter(r -> r.name.equals(named)).findFirst().orElse(null);
            if (route == null || !state.has("inner")) {
                throw new ToolException("the router's waiting state is damaged: " + state);
            }
            try {
                return route.work.resume(new Inner(resumption, state.get("inner")), caller, context);
            } catch (ToolSuspended waits) {
                throw at(route, waits);
            }
        }

        @Override
        public void giveUp(Resumption resumption, CallScope caller) {
            JsonNode state = resumption.state();
            if (chooser != null && state.has("chooser")) {
                chooser.giveUp(new Inner(resumption, state.get("chooser")), caller);
            }
            String named = state.path("route").asString(null);
            routes.stream().filter(r -> r.name.equals(named)).findFirst()
                    .ifPresent(route -> route.work.giveUp(new Inner(resumption, state.path("inner")), caller));
        }

        private static String routed(AgentTool route, String task, CallScope caller, ToolContext context)
                throws ToolException {
            try {
                return route.work.run(task, caller, context);
            } catch (ToolSuspended waits) {
                throw at(route, waits);
            }
        }

        private static ToolSuspended at(AgentTool route, ToolSuspended waits) {
            ObjectNode state = JsonNodeFactory.instance.objectNode().put("route", route.name);
            state.set("inner", waits.state());
            return new ToolSuspended(state, waits.waiting());
        }
    }

    /**
     * Branches at once, then {@code then}. A branch that waits does not hold up the others: once
     * they have all ended, the workflow waits for every waiting branch's calls (each known as
     * {@code BRANCH/THEIRS}, the branch's name, or {@code NAME~K} for the K-th of one name), and a
     * resume carries those branches on, side by side, before {@code then} runs. A waiting
     * {@code then} waits as the workflow's, with its own ids.
     *
     * <p>State: {@code {"task", "answers": [ANSWER or null], "waiting": {BRANCH: STATE}}} while
     * branches wait, {@code {"task", "answers", "then": STATE}} while {@code then} does. A
     * branch's notes are kept as {@code {"branch": BRANCH, "note": NOTE}}.
     */
    private record Parallel(List<AgentTool> branches, AgentTool then, int maxConcurrent) implements Work {

        /** A branch's end: its answer, or the calls it waits on. */
        private record Settled(String answer, ToolSuspended waits) {
        }

        @FunctionalInterface
        private interface BranchWork {
            String run(int branch) throws ToolException;
        }

        @Override
        public String run(String task, CallScope caller, ToolContext context) throws ToolException {
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < branches.size(); i++) {
                all.add(i);
            }
            List<Settled> settled = settle(all, i -> branches.get(i).work.run(task, caller, context), caller);
            return carryOn(task, new String[branches.size()], all, settled, caller, context);
        }

        @Override
        public String resume(Resumption resumption, CallScope caller, ToolContext context) throws ToolException {
            JsonNode state = resumption.state();
            JsonNode kept = state.get("answers");
            if (!state.path("task").isString() || kept == null || !kept.isArray() || kept.size() != branches.size()) {
                throw new ToolException("the parallel workflow's waiting state is damaged");
            }
            String task = state.get("task").asString();
            String[] answers = new String[branches.size()];
            for (int i = 0; i < answers.length; i++) {
                answers[i] = kept.get(i).isNull() ? null : kept.get(i).asString();
            }
            if (state.has("then")) {
                return thenOn(task, answers, new Inner(resumption, state.get("then")), caller, context);
            }
            JsonNode waiting = state.path("waiting");
            List<Integer> resumed = new ArrayList<>();
            for (int i = 0; i < branches.size(); i++) {
                if (waiting.has(key(i))) {
                    resumed.add(i);
                }
            }
            if (resumed.isEmpty()) {
                throw new ToolException("the parallel workflow's waiting state is damaged: no branch waits");
            }
            Object noteLock = new Object();
            List<Settled> settled = settle(resumed, i -> branches.get(i).work.resume(
                    new BranchResumption(resumption, key(i), waiting.get(key(i)), noteLock), caller, context), caller);
            return carryOn(task, answers, resumed, settled, caller, context);
        }

        @Override
        public void giveUp(Resumption resumption, CallScope caller) {
            JsonNode state = resumption.state();
            if (state.has("then") && then != null) {
                then.work.giveUp(new Inner(resumption, state.get("then")), caller);
            }
            Object noteLock = new Object();
            for (int i = 0; i < branches.size(); i++) {
                if (state.path("waiting").has(key(i))) {
                    branches.get(i).work.giveUp(new BranchResumption(resumption, key(i), state.get("waiting").get(key(i)),
                            noteLock), caller);
                }
            }
        }

        /** Runs {@code which} branches side by side: a failure cancels the others, a wait does not. */
        private List<Settled> settle(List<Integer> which, BranchWork work, CallScope caller) throws ToolException {
            return Branches.all(which, maxConcurrent, i -> {
                try {
                    return new Settled(work.run(i), null);
                } catch (ToolSuspended waits) {
                    return new Settled(null, waits);
                }
            }, i -> branches.get(i).name, caller == null ? null : caller.executor());
        }

        /** These branches ended: the workflow waits for those that wait, else {@code then} runs on the answers. */
        private String carryOn(String task, String[] answers, List<Integer> ran, List<Settled> settled,
                               CallScope caller, ToolContext context) throws ToolException {
            ObjectNode waiting = JsonNodeFactory.instance.objectNode();
            List<WaitingCall> calls = new ArrayList<>();
            for (int k = 0; k < ran.size(); k++) {
                int i = ran.get(k);
                Settled end = settled.get(k);
                if (end.waits() == null) {
                    answers[i] = end.answer();
                    continue;
                }
                waiting.set(key(i), end.waits().state());
                for (WaitingCall call : end.waits().waiting()) {
                    calls.add(new WaitingCall(key(i) + Suspension.NESTING + call.id(), call.call(), call.kind()));
                }
            }
            if (!calls.isEmpty()) {
                ObjectNode state = state(task, answers);
                state.set("waiting", waiting);
                throw new ToolSuspended(state, calls);
            }
            return thenOn(task, answers, null, caller, context);
        }

        /** {@code then} on the headed answers (carried on with {@code resumption} when it waited); without it, those. */
        private String thenOn(String task, String[] answers, Resumption resumption, CallScope caller,
                              ToolContext context) throws ToolException {
            StringBuilder merged = new StringBuilder();
            for (int i = 0; i < branches.size(); i++) {
                if (!merged.isEmpty()) {
                    merged.append("\n\n");
                }
                merged.append("## ").append(branches.get(i).name).append('\n').append(answers[i]);
            }
            if (then == null) {
                return merged.toString();
            }
            try {
                return resumption == null ? then.work.run(merged.toString(), caller, context)
                        : then.work.resume(resumption, caller, context);
            } catch (ToolSuspended waits) {
                ObjectNode state = state(task, answers);
                state.set("then", waits.state());
                throw new ToolSuspended(state, waits.waiting());
            }
        }

        private static ObjectNode state(String task, String[] answers) {
            ObjectNode state = JsonNodeFactory.instance.objectNode().put("task", task);
            ArrayNode kept = state.putArray("answers");
            for (String answer : answers) {
                if (answer == null) {
                    kept.addNull();
                } else {
                    kept.add(answer);
                }
            }
            return state;
        }

        /** Branch {@code i}'s name in ids and state: its name, or {@code NAME~K} when earlier branches have it. */
        private String key(int i) {
            String name = branches.get(i).name;
            int same = 0;
            for (int j = 0; j < i; j++) {
                if (branches.get(j).name.equals(name)) {
                    same++;
                }
            }
            return same == 0 ? name : name + "~" + (same + 1);
        }
    }

    /** A waiting branch's share of its workflow's resumption: its decisions, its notes, its state. */
    private record BranchResumption(Resumption outer, String key, JsonNode state, Object noteLock)
            implements Resumption {

        @Override
        public List<Decision> decisions() {
            String prefix = key + Suspension.NESTING;
            List<Decision> own = new ArrayList<>();
            for (Decision decision : outer.decisions()) {
                if (decision.callId().startsWith(prefix)) {
                    String id = decision.callId().substring(prefix.length());
                    own.add(ToolBatch.retarget(decision, id));
                }
            }
            return own;
        }

        @Override
        public List<JsonNode> notes() {
            List<JsonNode> own = new ArrayList<>();
            for (JsonNode note : outer.notes()) {
                if (key.equals(note.path("branch").asString(null)) && note.has("note")) {
                    own.add(note.get("note"));
                }
            }
            return own;
        }

        @Override
        public void note(JsonNode note) {
            ObjectNode wrapped = JsonNodeFactory.instance.objectNode().put("branch", key);
            wrapped.set("note", note);
            synchronized (noteLock) {       // branches resume side by side; the log takes one note at a time
                outer.note(wrapped);
            }
        }
    }

    /** A resumption with another state: a workflow's step's own. */
    private record Inner(Resumption outer, JsonNode state) implements Resumption {
        @Override
        public List<Decision> decisions() {
            return outer.decisions();
        }

        @Override
        public List<JsonNode> notes() {
            return outer.notes();
        }

        @Override
        public void note(JsonNode note) {
            outer.note(note);
        }
    }

    /**
     * Passes the sub-agent's events on as they come and gives its answer; a run that stopped
     * at calls waiting for decisions suspends the call with the sub-agent's session (a loop's), or
     * with the state a {@link ResumableAgent} keeps.
     */
    private static String finish(String name, Agent agent, AgentRun run, Session session, CallScope caller,
                                 ToolContext context)
            throws ToolException {
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
            awaitEnd(run);
            throw new ToolException(name + " was cancelled");
        }
        AgentResult result = run.await();
        if (result.reason().successful()) {
            return result.result();
        }
        if (result.reason() == dev.bellows.tool.LoopEndReason.INTERRUPTED && session.hasWaitingRun()) {
            throw new ToolSuspended(SubAgentState.write(session), session.waiting());
        }
        if (result.reason() == dev.bellows.tool.LoopEndReason.INTERRUPTED && agent instanceof ResumableAgent own
                && !result.waiting().isEmpty()) {
            // an agent of a kind of its own that waits: the state is its own to keep
            throw new ToolSuspended(own.waitingState(result, session), result.waiting());
        }
        throw new ToolException(name + " ended " + result.reason().wireName()
                + (result.result().isEmpty() ? "" : ": " + result.result()));
    }

    /**
     * Waits a little for a cancelled sub-agent's run to end, the interrupt held back meanwhile: a
     * run that stops something outside (a remote agent's task) does so before it ends, and the
     * calling run, and its process, should not end before that.
     */
    private static void awaitEnd(AgentRun run) {
        boolean interrupted = Thread.interrupted();
        try {
            run.await(CANCEL_GRACE);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** How long a cancelled sub-agent may take to stop what it started. */
    private static final java.time.Duration CANCEL_GRACE = java.time.Duration.ofSeconds(10);

    @Override
    public String toString() {
        return "AgentTool[" + name + "]";
    }
}
