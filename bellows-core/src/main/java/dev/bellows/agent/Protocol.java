package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.format.Observation;
import dev.bellows.format.TextFormat;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import dev.bellows.provider.ToolSpec;
import dev.bellows.tool.chain.internal.Calls;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a way of calling tools ({@link ToolMode}) adds to the one loop: the prompts, the tools
 * offered in the request, how results go back, and a reader for each answer. Immutable,
 * shared by the runs.
 */
interface Protocol {

    /**
     * A request without its history.
     *
     * @param system  the system message, or null for none
     * @param current the current turn as sent
     */
    record Frame(Message system, List<Message> current) {
        List<Message> all() {
            List<Message> all = new ArrayList<>(current.size() + 1);
            if (system != null) {
                all.add(system);
            }
            all.addAll(current);
            return all;
        }
    }

    /** The system message and the current turn ({@code pending} with what the protocol adds, such as the plan). */
    Frame frame(ToolRegistry tools, List<Message> pending, Plan plan);

    /** The tools offered in the request itself; empty when the prompt describes them. */
    default List<ToolSpec> toolSpecs(ToolRegistry tools) {
        return List.of();
    }

    /** How the calls of one iteration run. */
    Calls toolChain(ToolRegistry tools);

    /** The format observations are written in. */
    TextFormat observationFormat();

    /**
     * What goes back to the model after the calls ran: by default one user message, the
     * observation of every call followed by {@code note} when there is one, with the media the
     * tools returned (the provider sends them in its own form, or says in words why it cannot).
     */
    default List<Message> observation(Message assistant, ToolChainResult result, String note) {
        String text = Observation.format(observationFormat(), result.outcomes());
        return List.of(Message.user(note.isEmpty() ? text : text + "\n\n" + note, result.media()));
    }

    /**
     * What joins memory after the answer when a loop-breaking call ended the run: nothing by
     * default; the calls' results when the API needs every call answered before the next turn.
     */
    default List<Message> closing(Message assistant, ToolChainResult result) {
        return List.of();
    }

    /**
     * A reader for one answer (one attempt of one model call) of turn {@code turn}, whose
     * {@code tool_call_end} events carry the ids their calls will run under ({@link CallIds});
     * turn 0 (a reader outside a run) leaves them without.
     */
    AnswerReader reader(ToolRegistry tools, int turn, Consumer<AgentEvent> emit);

    /** A reader for one answer outside a run: its {@code tool_call_end} events carry no ids. */
    default AnswerReader reader(ToolRegistry tools, Consumer<AgentEvent> emit) {
        return reader(tools, 0, emit);
    }
}
