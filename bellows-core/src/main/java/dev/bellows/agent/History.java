package dev.bellows.agent;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * The history one model call of a run is sent: the newest whole turns of the agent's memory
 * that fit its limits, with the rest of the request (system message, current turn) reserved.
 *
 * <p>The loops store a run as turns {@code [task, answer, observation]}, then
 * {@code [answer, observation]} for each later iteration, so that a tool call and its
 * observation are always kept or dropped together. Pruning by whole turns alone would then
 * let a request start with an assistant message and lose the task, once the run's first
 * turn is dropped. So:
 * <ul>
 *   <li>when this run's first turn is dropped, the task is sent anyway, first (its tokens
 *       reserved): the model keeps its goal, and the conversation starts with a user message,
 *       as the Anthropic Messages API requires;</li>
 *   <li>when the kept turns begin inside an earlier run, the turns of that run before its
 *       next user message are dropped too, for the same reason.</li>
 * </ul>
 * With no token limit the reservation is not counted at all (it could not change anything).
 */
final class History {

    private History() {
    }

    /**
     * @param memory   the agent's memory
     * @param runStart the number of turns memory held when this run began (its first turn's index)
     * @param task     this run's task, as its first turn holds it
     * @param frame    the rest of the request: the system message and the current turn as sent
     * @param pending  the current turn's messages when memory already holds them as the last
     *                 messages of its newest turn (then their tokens are not reserved twice), else empty
     * @param from     the first turn the agent may see at all (after a handoff that hands on part
     *                 of the history, {@link Session#historyFrom()}); 0 for all of it
     * @return the history, oldest first; the loop removes {@code pending} from its end
     */
    static List<Message> within(ConversationMemory memory, int runStart, Message task, List<Message> frame,
                                List<Message> pending) {
        return within(memory, runStart, task, frame, pending, 0);
    }

    static List<Message> within(ConversationMemory memory, int runStart, Message task, List<Message> frame,
                                List<Message> pending, int from) {
        int reserve = 0;
        if (memory.maxTokens() != Integer.MAX_VALUE) {
            long tokens = 0;
            for (Message message : frame) {
                tokens += memory.tokenCount(message);
            }
            for (Message message : pending) {
                tokens -= memory.tokenCount(message);
            }
            reserve = (int) Math.max(0, Math.min(tokens, Integer.MAX_VALUE));
        }
        List<List<Message>> all = memory.turns();
        List<List<Message>> kept = memory.turnsWithin(reserve);
        int first = all.size() - kept.size();
        if (from > first) {
            // A handoff's cut, not the limit's: the agent sees what it was handed, as it is.
            return flatten(all.subList(Math.min(from, all.size()), all.size()), null);
        }
        if (first <= runStart || runStart >= all.size()) {
            // The kept turns hold this run's first turn (or the run has none yet).
            while (first < Math.min(runStart, all.size()) && all.get(first).getFirst().role() != Role.USER) {
                first++;
            }
            return flatten(all.subList(first, all.size()), null);
        }
        // This run's first turn, the one with the task, did not fit: the task goes first anyway.
        long withTask = (long) reserve + memory.tokenCount(task);
        kept = memory.turnsWithin((int) Math.min(withTask, Integer.MAX_VALUE));
        first = Math.max(all.size() - kept.size(), runStart + 1);
        return flatten(all.subList(Math.min(first, all.size()), all.size()), task);
    }

    private static List<Message> flatten(List<List<Message>> turns, Message head) {
        List<Message> messages = new ArrayList<>();
        if (head != null) {
            messages.add(head);
        }
        for (List<Message> turn : turns) {
            messages.addAll(turn);
        }
        return messages;
    }
}
