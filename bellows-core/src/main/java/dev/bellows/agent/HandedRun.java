package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.Message;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A handoff to an agent that is not a {@link DefaultAgent} (a remote agent, say): it runs on a
 * session of its own that holds the history handed to it, its events are passed on as the
 * run's (all but its own {@code loop_start} and {@code loop_end}: the run has them), cancelling
 * the run cancels it, and its end is the run's. What it adds to its session stays there: the
 * run's session keeps the conversation as far as the handoff.
 *
 * <p>A {@link ResumableAgent} whose run stops at one question (a remote task that asks for
 * input) keeps the conversation: the run ends {@code interrupted} with that waiting call, the
 * session keeps the agent's {@linkplain ResumableAgent#waitingState waiting state}
 * ({@link Session#handedWait()}), and the session's next run answers the question with its
 * task, once, instead of going to a model. When such an agent's run ends without a question,
 * the conversation goes back to the agent the session is run with.
 */
final class HandedRun {

    private HandedRun() {
    }

    static LoopEvent.LoopEnd run(MachineStep.HandOff step, Session session, RunHandle run) {
        Session handed = handedSession(session);
        List<List<Message>> turns = session.memory().turns();
        for (List<Message> turn : turns.subList(Math.min(session.historyFrom(), turns.size()), turns.size())) {
            handed.memory().addTurn(turn);
        }
        AgentRun other;
        try {
            other = step.handoff().agent().run(step.task(), handed);
        } catch (RuntimeException e) {
            return new LoopEvent.LoopEnd(LoopEndReason.ERROR, step.handoff().name() + " could not start: " + e.getMessage());
        }
        return follow(other, step.handoff(), handed, session, run);
    }

    /**
     * The handoff whose agent has {@code session}'s conversation and waits there for an answer,
     * reached from {@code options}' handoffs (directly or through the agents they hand to); null
     * when none waits. Costs one field's read for a session never handed to such an agent.
     */
    static Handoff waiting(AgentOptions options, Session session) {
        JsonNode wait = session.handedWait();
        if (wait == null) {
            return null;
        }
        String name = session.control().map(Session.Control::agent).orElse(null);
        if (name == null || !name.equals(wait.path("handoff").asString(""))) {
            return null;
        }
        Handoff found = find(options, name, new HashSet<>());
        return found != null && found.agent() instanceof ResumableAgent ? found : null;
    }

    private static Handoff find(AgentOptions options, String name, Set<AgentOptions> seen) {
        if (!seen.add(options)) {
            return null;
        }
        Handoff direct = options.handoffs.get(name);
        if (direct != null) {
            return direct;
        }
        for (Handoff handoff : options.handoffs.values()) {
            if (handoff.agent() instanceof DefaultAgent next) {
                Handoff found = find(next.options, name, seen);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /**
     * The session's next run when {@code handoff}'s agent waits in it ({@link #waiting}): its
     * {@code task} is the answer to each waiting call, and the agent carries its run on.
     */
    static LoopEvent.LoopEnd answer(Handoff handoff, String task, Session session, RunHandle run) {
        JsonNode wait = session.handedWait();
        List<Decision> decisions = new java.util.ArrayList<>();
        for (JsonNode id : wait.path("calls")) {
            decisions.add(Decision.respond(id.asString(), task));
        }
        Session handed = handedSession(session);
        AgentRun other;
        try {
            other = ((ResumableAgent) handoff.agent()).resume(new Kept(session, List.copyOf(decisions)), handed);
        } catch (RuntimeException e) {
            return new LoopEvent.LoopEnd(LoopEndReason.ERROR, handoff.name() + " could not carry on: " + e.getMessage());
        }
        return follow(other, handoff, handed, session, run);
    }

    private static Session handedSession(Session session) {
        return Session.sharing(session.state(), session.tree());      // the run's state goes along
    }

    private static LoopEvent.LoopEnd follow(AgentRun other, Handoff handoff, Session handed, Session session,
                                            RunHandle run) {
        return run.runTools(() -> {
            try {
                for (AgentEvent event : other) {
                    if (!(event instanceof LoopEvent.LoopStart) && !(event instanceof LoopEvent.LoopEnd)) {
                        run.emit(event);
                    }
                    if (run.isCancelled()) {
                        other.cancel();
                    }
                }
            } catch (CancellationException e) {
                other.cancel();         // this thread was interrupted: the run was cancelled
                keep(handoff, null, handed, session);
                return LoopEnds.cancelled();
            }
            AgentResult result = other.await();
            if (keep(handoff, result, handed, session)) {
                run.waiting(result.waiting());
            }
            return new LoopEvent.LoopEnd(result.reason(), result.result());
        });
    }

    /**
     * Keeps the wait of a {@link ResumableAgent}'s run that stopped at one question (then the
     * conversation stays with it); else forgets any, and the conversation goes back. Whether it waits.
     */
    private static boolean keep(Handoff handoff, AgentResult result, Session handed, Session session) {
        if (!(handoff.agent() instanceof ResumableAgent resumable)) {
            return false;
        }
        JsonNode state = null;
        if (result != null && result.reason() == LoopEndReason.INTERRUPTED && result.waiting().size() == 1
                && result.waiting().getFirst().kind() != WaitingCall.Kind.APPROVAL) {
            try {
                state = resumable.waitingState(result, handed);
            } catch (IllegalArgumentException e) {
                state = null;       // not a wait it can carry on: the run ends as it did
            }
        }
        if (state == null) {
            if (session.handedWait() != null) {
                session.handedWait(null);
            }
            session.control(null);
            return false;
        }
        ObjectNode wait = JsonNodeFactory.instance.objectNode();
        wait.put("handoff", handoff.name());
        wait.putArray("calls").add(result.waiting().getFirst().id());
        wait.set("state", state);
        wait.putArray("notes");
        session.handedWait(wait);
        return true;
    }

    /** The session's kept wait as a {@link Resumption}: its notes kept with it, so that a resume cut short is asked again with them. */
    private record Kept(Session session, List<Decision> decisions) implements Resumption {

        @Override
        public JsonNode state() {
            return dev.bellows.json.internal.FrozenJson.freeze(session.handedWait().path("state"));
        }

        @Override
        public List<JsonNode> notes() {
            List<JsonNode> notes = new java.util.ArrayList<>();
            session.handedWait().path("notes").forEach(note -> notes.add(dev.bellows.json.internal.FrozenJson.freeze(note)));
            return notes;
        }

        @Override
        public void note(JsonNode note) {
            ObjectNode wait = (ObjectNode) session.handedWait().deepCopy();
            ((ArrayNode) wait.get("notes")).add(note);
            session.handedWait(wait);
        }
    }
}
