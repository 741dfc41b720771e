package dev.bellows.agent;

import tools.jackson.databind.JsonNode;

import dev.bellows.tool.ToolCallOutcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What resuming a waiting run has done so far: the decisions taken, the calls started, the
 * outcomes of those that ended. Kept with the session's {@link Suspension} until the run goes
 * on past it; a stored session writes each entry before the loop moves on (a call's start
 * before it runs, its outcome when it ends), so a resume in another process after a crash
 * never runs a call whose outcome is stored, and never silently runs again one that started.
 */
final class ResumeLog {

    /** One thing a resume did. */
    sealed interface Entry {
        String id();
    }

    /** A decision on a waiting call. */
    record Decided(String id, Decision decision) implements Entry {
        Decided {
            Objects.requireNonNull(decision, "decision");
        }
    }

    /** The call is about to run. */
    record Started(String id) implements Entry {
    }

    /** The call ended with this outcome (a deferred one waits again). */
    record Finished(String id, ToolCallOutcome outcome) implements Entry {
        Finished {
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * A note of a suspended call's tool while it resumed ({@link Resumption#note}), for a later
     * attempt of the same resume.
     */
    record Noted(String id, JsonNode note) implements Entry {
        Noted {
            Objects.requireNonNull(note, "note");
        }
    }

    private final Map<String, List<JsonNode>> notes = new HashMap<>();
    private final Map<String, Decision> decisions = new HashMap<>();
    private final Set<String> started = new HashSet<>();
    private final Map<String, ToolCallOutcome> finished = new HashMap<>();
    private final List<Entry> entries = new ArrayList<>();

    ResumeLog(List<Entry> entries) {
        entries.forEach(this::apply);
    }

    private void apply(Entry entry) {
        entries.add(entry);
        switch (entry) {
            case Decided d -> decisions.put(d.id(), d.decision());
            case Started s -> started.add(s.id());
            case Finished f -> finished.put(f.id(), f.outcome());
            case Noted n -> notes.computeIfAbsent(n.id(), id -> new ArrayList<>()).add(n.note());
        }
    }

    void add(Entry entry) {
        apply(entry);
    }

    List<Entry> entries() {
        return List.copyOf(entries);
    }

    Decision decision(String id) {
        return decisions.get(id);
    }

    boolean started(String id) {
        return started.contains(id);
    }

    /** The notes of the suspended call {@code id}, in order. */
    List<JsonNode> notes(String id) {
        return List.copyOf(notes.getOrDefault(id, List.of()));
    }

    ToolCallOutcome finished(String id) {
        return finished.get(id);
    }
}
