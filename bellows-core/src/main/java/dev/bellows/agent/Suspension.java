package dev.bellows.agent;

import dev.bellows.provider.Message;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A run stopped at tool calls that wait ({@code interrupted}): everything a resume needs to
 * carry it on without asking the model again. The answer whose calls wait, the messages of
 * its turn before the observation, every call of the answer with its id and state (done with
 * its outcome, waiting for a decision, or held until the calls before it are decided), and the
 * loop's counters. Immutable; {@link SuspensionJson} writes it for a stored session.
 *
 * @param task      the run's task
 * @param iteration the iteration whose answer waits
 * @param errors    the consecutive errors counted so far (the circuit breaker's)
 * @param lastError the last of them
 * @param head      the messages of the waiting iteration's turn before its observation: the
 *                  task (in the first iteration), then the answer, last
 * @param note      what follows the observation (a protocol's note), or empty
 * @param calls     every call of the answer, in call order
 */
record Suspension(String task, int iteration, int errors, String lastError, List<Message> head, String note,
                  List<Entry> calls) {

    /** Where a call of the waiting answer stands. */
    enum State {
        /** It has an outcome (it ran, failed, or was denied). */
        DONE,
        /** It waits for a person's approval. */
        APPROVAL,
        /** It waits for its result from outside the run. */
        EXTERNAL,
        /** It needs no decision; it runs once the calls before it are decided. */
        HELD
    }

    /**
     * One call of the waiting answer.
     *
     * @param id       its id
     * @param decoded  the call as decoded (arguments checked, for one that can run)
     * @param state    where it stands
     * @param outcome  for {@link State#DONE}, its outcome; else null
     * @param decision for a waiting call decided on but not yet run (a call before it was
     *                 deferred again), the decision; else null
     */
    record Entry(String id, DecodedToolCall decoded, State state, ToolCallOutcome outcome, Decision decision) {
        Entry {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(decoded, "decoded");
            Objects.requireNonNull(state, "state");
            if ((state == State.DONE) != (outcome != null)) {
                throw new IllegalArgumentException("a call has an outcome exactly when it is done: " + id);
            }
        }

        boolean waits() {
            return (state == State.APPROVAL || state == State.EXTERNAL) && decision == null;
        }
    }

    Suspension {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(lastError, "lastError");
        Objects.requireNonNull(note, "note");
        head = List.copyOf(head);
        calls = List.copyOf(calls);
        if (head.isEmpty()) {
            throw new IllegalArgumentException("a waiting run keeps at least its answer");
        }
    }

    /** The answer whose calls wait. */
    Message answer() {
        return head.getLast();
    }

    /** The calls that wait for a decision, in call order. */
    List<WaitingCall> waiting() {
        List<WaitingCall> waiting = new ArrayList<>();
        for (Entry entry : calls) {
            if (entry.waits() && entry.decoded() instanceof ToolCall call) {
                waiting.add(new WaitingCall(entry.id(), call,
                        entry.state() == State.APPROVAL ? WaitingCall.Kind.APPROVAL : WaitingCall.Kind.EXTERNAL));
            }
        }
        return waiting;
    }

    /** The ids of the calls that wait, for messages. */
    String waitingIds() {
        return String.join(", ", waiting().stream().map(WaitingCall::id).toList());
    }
}
