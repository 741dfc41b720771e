package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.format.ToolChain;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a way of calling tools ({@link ToolMode}) adds to the one loop: the prompts, how
 * observations are written, and a reader for each answer. Immutable, shared by the runs.
 */
interface Protocol {

    /**
     * The request without its history: the system message first, then the current turn as
     * sent ({@code pending} with whatever the protocol adds, such as the plan).
     */
    List<Message> frame(ToolRegistry tools, Message pending, Plan plan);

    /** How the calls of one iteration run and their observation is written. */
    ToolChain toolChain(ToolRegistry tools);

    /** A reader for one answer (one attempt of one model call). */
    AnswerReader reader(Consumer<AgentEvent> emit);
}
