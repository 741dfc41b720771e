package dev.bellows.agent;

import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Another agent this one may hand the conversation to: its model is offered a tool
 * {@code transfer_to_NAME}, and a call of it ends this agent's part of the run. The other agent
 * carries the run on in the same session, with the history this handoff lets it see, and its
 * answer is the run's; the session remembers that it has the conversation, so the session's
 * next run goes to it ({@link Session#control()}).
 *
 * <pre>{@code
 * DefaultAgent billing = DefaultAgent.builder().provider(provider).model("m")
 *         .instructions("You answer questions about invoices.").toolRegistry(new ToolRegistry()).build();
 * DefaultAgent triage = DefaultAgent.builder().provider(provider).model("m")
 *         .instructions("You find out what the user needs and hand them over.")
 *         .toolRegistry(new ToolRegistry())
 *         .handoff(Handoff.to("billing", billing).history(Handoff.History.lastTurns(4)))
 *         .build();
 * }</pre>
 *
 * <p>A {@link DefaultAgent} target runs in this run's own loop (the same events, listeners
 * and cancellation, its own model, instructions, tools and limits); any other {@link Agent}
 * (a remote one) runs on a session of its own that holds the history handed over, its events
 * passed on as they come. Immutable and thread-safe.
 */
public final class Handoff {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,52}");

    /** What the agent that takes over sees of the conversation so far. */
    public sealed interface History permits History.All, History.LastTurns, History.Summary {

        /** All of it (the default): everything the agent handing over saw. */
        static History all() {
            return All.INSTANCE;
        }

        /**
         * Its last {@code turns} turns (each turn is one answer of the model with what followed
         * it: the observation, the reminder).
         *
         * @throws IllegalArgumentException for fewer than 1
         */
        static History lastTurns(int turns) {
            return new LastTurns(turns);
        }

        /** None: the model that hands over writes a summary, which is the other agent's task. */
        static History summary() {
            return Summary.INSTANCE;
        }

        /** All of the conversation. */
        enum All implements History { INSTANCE }

        /** The last {@code turns} turns. */
        record LastTurns(int turns) implements History {
            public LastTurns {
                if (turns < 1) {
                    throw new IllegalArgumentException("lastTurns needs at least 1 turn, not " + turns);
                }
            }
        }

        /** Nothing but the summary the model writes. */
        enum Summary implements History { INSTANCE }
    }

    private final String name;
    private final String description;
    /** The agent, resolved at the first handoff (agents that hand over to each other are built one after the other). */
    private final Supplier<? extends Agent> agent;
    private final History history;
    private final Tool tool;

    private Handoff(String name, String description, Supplier<? extends Agent> agent, History history) {
        this.name = name;
        this.description = description;
        this.agent = agent;
        this.history = history;
        this.tool = new Transfer();
    }

    /**
     * A handoff to {@code agent}, named {@code name}: the model's tool is {@code transfer_to_NAME}
     * and the events name the agent {@code name}. It sees all of the history; see
     * {@link #history(History)}.
     *
     * @param name letters, digits, {@code _} and {@code -}, at most 52
     * @throws IllegalArgumentException for a name that is not one
     */
    public static Handoff to(String name, Agent agent) {
        Objects.requireNonNull(agent, "agent");
        return to(name, () -> agent);
    }

    /**
     * A handoff to the agent {@code agent} gives when first asked for (once): for agents that
     * hand the conversation to each other, which cannot each be built with the other.
     *
     * @throws IllegalArgumentException for a name that is not one
     */
    public static Handoff to(String name, Supplier<? extends Agent> agent) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(agent, "agent");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a handoff's name is letters, digits, _ and - (at most 52): \""
                    + name + "\" is not");
        }
        return new Handoff(name, "", new Once(agent), History.all());
    }

    /** A supplier asked once, its answer kept. */
    private static final class Once implements Supplier<Agent> {
        private final Supplier<? extends Agent> source;
        private volatile Agent made;

        Once(Supplier<? extends Agent> source) {
            this.source = source;
        }

        @Override
        public Agent get() {
            Agent agent = made;
            if (agent == null) {
                synchronized (this) {
                    agent = made;
                    if (agent == null) {
                        agent = Objects.requireNonNull(source.get(), "the handoff's agent supplier gave null");
                        made = agent;
                    }
                }
            }
            return agent;
        }
    }

    /** This handoff with {@code history} as what the other agent sees. */
    public Handoff history(History history) {
        return new Handoff(name, description, agent, Objects.requireNonNull(history, "history"));
    }

    /** This handoff with {@code description} (what the other agent does) in its tool's description. */
    public Handoff description(String description) {
        return new Handoff(name, Objects.requireNonNull(description, "description"), agent, history);
    }

    /** The name of the agent that takes over, as the events say it. */
    public String name() {
        return name;
    }

    /** The agent that takes over (for a handoff given a supplier, asked for now, once). */
    public Agent agent() {
        return agent.get();
    }

    /** What it sees of the conversation. */
    public History history() {
        return history;
    }

    /** The tool's name: {@code transfer_to_NAME}. */
    public String toolName() {
        return "transfer_to_" + name;
    }

    /** The tool the model is offered. */
    Tool tool() {
        return tool;
    }

    @Override
    public String toString() {
        return "Handoff[" + name + ", " + history + "]";
    }

    /** {@code transfer_to_NAME}: its result hands the conversation over ({@link ToolEffect.HandOff}). */
    private final class Transfer implements Tool {
        private final ObjectNode schema;

        Transfer() {
            ObjectNode made = JsonNodeFactory.instance.objectNode().put("type", "object");
            boolean summary = history instanceof History.Summary;
            made.putObject("properties").putObject("message").put("type", "string").put("description", summary
                    ? "Everything " + name + " needs to go on: what the user wants and what has been done, since it"
                    + " sees nothing of this conversation"
                    : "Anything " + name + " should know that the conversation does not say (optional)");
            if (summary) {
                made.putArray("required").add("message");
            }
            made.put("additionalProperties", false);
            this.schema = made;
        }

        @Override
        public String name() {
            return toolName();
        }

        @Override
        public String description() {
            return "Hands the conversation to " + name + " for the rest of the task: " + name
                    + " answers the user from then on." + (description.isEmpty() ? "" : " " + description);
        }

        @Override
        public JsonNode inputSchema() {
            return schema;
        }

        @Override
        public ToolResult<?> call(ToolContext context, JsonNode arguments) throws ToolException {
            JsonNode given = arguments == null ? null : arguments.get("message");
            String message = given == null || !given.isString() ? "" : given.asString().strip();
            if (message.isEmpty() && history instanceof History.Summary) {
                throw new ToolException("\"message\" is required: " + name + " sees nothing of this conversation but it");
            }
            return ToolResult.of("The conversation is handed to " + name + ".")
                    .withEffect(new ToolEffect.HandOff(name, message));
        }
    }
}
