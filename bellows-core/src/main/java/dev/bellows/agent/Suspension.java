package dev.bellows.agent;

import dev.bellows.provider.Message;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
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
        HELD,
        /**
         * Its tool suspended it ({@link ToolSuspended}): it waits for decisions on the tool's own
         * waiting calls ({@link Entry#nested()}), known outside as {@code ID/THEIRS}.
         */
        NESTED
    }

    /** The separator of a nested waiting call's id: the suspended call's id, then the tool's own. */
    static final String NESTING = "/";

    /**
     * What a suspended call ({@link State#NESTED}) keeps.
     *
     * @param state   the tool's state ({@link ToolSuspended#state()})
     * @param waiting the tool's waiting calls, with its own ids
     * @param held    decisions on them (by the tool's ids) given while an earlier call of the
     *                answer still waited, so that it could not run yet
     */
    record Nested(JsonNode state, List<WaitingCall> waiting, Map<String, Decision> held) {
        Nested {
            Objects.requireNonNull(state, "state");
            waiting = List.copyOf(waiting);
            held = Map.copyOf(held);
        }

        /** The decision on the tool's call {@code ownId} given in the decisions by outside id, or held. */
        Decision decision(String callId, String ownId, java.util.function.Function<String, Decision> given) {
            Decision decision = held.get(ownId);
            return decision != null ? decision : given.apply(callId + NESTING + ownId);
        }
    }

    /**
     * A call that waits for a decision, as the outside knows it.
     *
     * @param id    its id outside (a nested one's {@code ID/THEIRS})
     * @param kind  what it waits for
     * @param entry the call of the answer it belongs to
     * @param call  the call that waits (a nested one's: the tool's)
     * @param held  a decision given already and held, or null
     */
    record Open(String id, WaitingCall.Kind kind, Entry entry, ToolCall call, Decision held) {
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
     * @param nested   for {@link State#NESTED}, what its tool kept; else null
     */
    record Entry(String id, DecodedToolCall decoded, State state, ToolCallOutcome outcome, Decision decision,
                 Nested nested) {
        Entry {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(decoded, "decoded");
            Objects.requireNonNull(state, "state");
            if ((state == State.DONE) != (outcome != null)) {
                throw new IllegalArgumentException("a call has an outcome exactly when it is done: " + id);
            }
            if ((state == State.NESTED) != (nested != null)) {
                throw new IllegalArgumentException("a call keeps its tool's suspension exactly when it is nested: " + id);
            }
        }

        Entry(String id, DecodedToolCall decoded, State state, ToolCallOutcome outcome, Decision decision) {
            this(id, decoded, state, outcome, decision, null);
        }

        boolean waits() {
            return switch (state) {
                case APPROVAL, EXTERNAL -> decision == null;
                case NESTED -> nested.waiting().stream().anyMatch(call -> !nested.held().containsKey(call.id()));
                case DONE, HELD -> false;
            };
        }

        /** The calls of this entry that wait or waited for a decision, as the outside knows them. */
        List<Open> open() {
            return switch (state) {
                case APPROVAL, EXTERNAL -> decoded instanceof ToolCall call ? List.of(new Open(id,
                        state == State.APPROVAL ? WaitingCall.Kind.APPROVAL : WaitingCall.Kind.EXTERNAL, this, call,
                        decision)) : List.of();
                case NESTED -> nested.waiting().stream().map(call -> new Open(id + NESTING + call.id(), call.kind(),
                        this, call.call(), nested.held().get(call.id()))).toList();
                case DONE, HELD -> List.of();
            };
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
        for (Open open : open()) {
            if (open.held() == null) {
                waiting.add(new WaitingCall(open.id(), open.call(), open.kind()));
            }
        }
        return waiting;
    }

    /** Every call that waits or waited for a decision (held ones too), as the outside knows them, in call order. */
    List<Open> open() {
        List<Open> open = new ArrayList<>();
        for (Entry entry : calls) {
            open.addAll(entry.open());
        }
        return open;
    }

    /** The ids of the calls that wait, for messages. */
    String waitingIds() {
        return String.join(", ", waiting().stream().map(WaitingCall::id).toList());
    }
}
