package dev.bellows.agent;

import dev.bellows.format.ActionFormat;
import dev.bellows.format.TextFormat;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.prompt.ReActPrompts;
import dev.bellows.provider.Message;
import dev.bellows.tool.ToolRegistry;
import java.util.Optional;

/**
 * A ReAct agent: the model writes its answer as sections of a {@link TextFormat}
 * ({@code thought}, {@code action}, {@code answer}; Markdown headings or XML tags), its tool
 * calls as JSON or YAML inside the {@code action} section, and reads the tools' results as an
 * {@code observation} section in the same format.
 *
 * <pre>{@code
 * ReActAgent agent = ReActAgent.builder()
 *         .provider(provider)
 *         .model("gpt-4o-mini")
 *         .instructions("You help with the files in this folder.")
 *         .toolRegistry(new ToolRegistry().register(readFile))
 *         .textFormat(new XmlFormat())            // default: MarkdownFormat
 *         .actionFormat(ActionFormat.YAML)        // default: JSON
 *         .build();
 * AgentResult result = agent.run("What does notes.txt say?").await();
 * }</pre>
 *
 * <h2>The loop</h2>
 * The system message holds the instructions, the loop rules, the sections as
 * {@link TextFormat#describeStructure()} describes them, how to write an action, and the tool
 * catalog. Each iteration (at most {@link AgentBuilder#maxIterations}) emits {@code iteration_start},
 * streams the answer through a {@link dev.bellows.stream.StreamProcessor} (stream events reach
 * the listeners as in {@link DefaultAgent}; thinking tags are taken out) and reads its message
 * text with the format's {@link TextFormat#reader section reader} while it streams: each
 * complete section is a {@code section} event in the chunk that completes it, and the tool
 * name of a JSON action a {@code tool_call_name} event as soon as it is written. At the end:
 * <ul>
 *   <li>an {@code answer} and no {@code action}: the loop ends {@code task_completion} with the
 *       answer's text (several {@code answer} sections are joined by a blank line);</li>
 *   <li>an {@code action}: its calls (one or a list, see {@link ActionFormat}) run in order
 *       through a {@link dev.bellows.tool.chain.ToolChain}, each giving {@code tool_result} or
 *       {@code tool_result_error}; the chain's observation is the next user message. A
 *       loop-breaking tool ({@code ask_question}, {@code converse}, {@code task_completion},
 *       or your own) ends the loop as in {@link DefaultAgent}. <b>An action and an answer in
 *       the same answer:</b> the action wins: its calls run, the answer is ignored (it was
 *       written before their results were known) and the observation is followed by a note
 *       saying so, so the model answers again with the results in hand;</li>
 *   <li>an action that cannot be read as calls at all (invalid JSON or YAML, not a call nor a
 *       list of calls): {@code tool_result_error} without server or tool name, and the decoder's
 *       message, written for the model, is the next user message. A list whose entries are
 *       partly bad runs the good ones; the bad ones are errors in the observation;</li>
 *   <li>no section at all: {@code no_tool_call}, and the {@link dev.bellows.format.TextFormatException}'s
 *       message is the next user message; sections but neither action nor answer (a thought
 *       only): {@code no_tool_call} and a reminder.</li>
 * </ul>
 * Format errors, unreadable actions, unknown tools, bad arguments and failing tools count as
 * errors; a successful call resets the count. After an iteration, a count of
 * {@link AgentBuilder#maxConsecutiveErrors} ends the loop {@code circuit_breaker}; else reaching
 * {@link AgentBuilder#maxIterations} ends it {@code max_iterations}. Provider failures, retries,
 * cancellation, memory and threads behave exactly as in {@link DefaultAgent}.
 *
 * <p>Built-in tools: {@code ask_question} and {@code converse} are added to the registry when
 * missing (the {@code answer} section replaces {@code task_completion}; {@code update_plan} is
 * not offered, this loop shows no plan), unless {@link AgentBuilder#builtinTools(boolean)} says not to.
 * They are offered beside the registry's tools, never registered into it, and the sections are
 * registered in a copy of the text format: what you pass in stays as it was.
 *
 * <p>A preset of {@link DefaultAgent} with {@link ToolMode#REACT}: the same loop, sessions and
 * threads.
 */
public final class ReActAgent implements Agent {

    private final DefaultAgent agent;

    private ReActAgent(DefaultAgent agent) {
        this.agent = agent;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a run in the agent's own session and returns its handle at once.
     *
     * @throws IllegalStateException when a run of that session is still going on
     */
    @Override
    public AgentRun run(String task) {
        return agent.run(task);
    }

    /**
     * Starts a run in {@code session} and returns its handle at once.
     *
     * @throws IllegalStateException when a run of that session is still going on
     */
    @Override
    public AgentRun run(String task, Session session) {
        return agent.run(task, session);
    }

    /** The agent's own session, which {@link #run(String)} uses. */
    public Session session() {
        return agent.session();
    }

    /** The conversation of the agent's own session; {@link ConversationMemory#clear()} starts a new one. */
    public ConversationMemory memory() {
        return agent.memory();
    }

    /** The tools as the model sees them now: the registry's and the built-ins. */
    public ToolRegistry toolRegistry() {
        return agent.options.tools.snapshot();
    }

    /** The format the answers are read with: a copy of the one given, with the ReAct sections. */
    public TextFormat textFormat() {
        return agent.options.textFormat;
    }

    public ActionFormat actionFormat() {
        return agent.options.actionFormat;
    }

    public String model() {
        return agent.model();
    }

    /** The system message of this agent's requests: see {@link DefaultAgent#systemMessage()}. */
    public Optional<Message> systemMessage() {
        return agent.systemMessage();
    }

    /** The one agent this preset is. */
    DefaultAgent agent() {
        return agent;
    }

    /** The prompt texts this agent sends now, for inspection or for comparing with what was sent. */
    public ReActPrompts prompts() {
        return ((ReActProtocol) agent.protocol).prompts(toolRegistry());
    }

    @Override
    public String toString() {
        return "ReActAgent[" + agent.options.provider.name() + ", model=" + model() + ", " + agent.options.tools + "]";
    }

    /** Builds a {@link ReActAgent}: see {@link AgentBuilder} for the settings. */
    public static final class Builder extends AgentBuilder<Builder, ReActAgent> {

        private Builder() {
            super(ToolMode.REACT);
        }

        /**
         * Only {@link ToolMode#REACT}: a ReAct agent reads sections.
         *
         * @throws IllegalArgumentException for any other mode; use {@link DefaultAgent#builder()}
         */
        @Override
        public Builder toolMode(ToolMode toolMode) {
            if (toolMode != ToolMode.REACT) {
                throw new IllegalArgumentException("a ReActAgent reads ReAct sections; for " + toolMode
                        + " use DefaultAgent.builder().toolMode(ToolMode." + toolMode + ")");
            }
            return this;
        }

        @Override
        public ReActAgent build() {
            return new ReActAgent(new DefaultAgent(new AgentOptions(this, "ReActAgent")));
        }
    }
}
