package dev.bellows.eval;

import tools.jackson.databind.JsonNode;
import dev.bellows.json.internal.FrozenJson;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * An expected tool trajectory, compared with a run's tool calls (other than the one that ends
 * the loop) the way LangChain's agentevals compares trajectories:
 *
 * <ul>
 *   <li>{@link Match#STRICT}: the same calls in the same order;</li>
 *   <li>{@link Match#UNORDERED}: the same calls in any order (as many of each);</li>
 *   <li>{@link Match#SUBSET}: every call of the run is among the expected ones (each expected
 *       call stands for one call of the run);</li>
 *   <li>{@link Match#SUPERSET}: every expected call is among the run's.</li>
 * </ul>
 *
 * <p>An expected call names the tool ({@code get_weather}, or {@code server/tool} to name the
 * server too) and may give arguments: without them any arguments match; with them the run's
 * arguments must equal them ({@link ArgumentsMatch#EXACT}) or contain them as a JSON subset
 * ({@link ArgumentsMatch#SUBSET}, the default). Numbers compare by value, objects regardless of
 * key order. When calls could pair up several ways, the check finds a pairing if there is one.
 *
 * @param match     how the two lists are compared
 * @param arguments how expected arguments are compared with the run's
 * @param calls     the expected calls
 */
public record ToolTrajectory(Match match, ArgumentsMatch arguments, List<ExpectedCall> calls) {

    /** How the run's calls and the expected ones are compared. */
    public enum Match {
        STRICT, UNORDERED, SUBSET, SUPERSET;

        /** Made once: every run's check starts its reason with it. */
        private final String wireName = name().toLowerCase(Locale.ROOT);

        /** The name datasets use ({@code strict}, ...). */
        public String wireName() {
            return wireName;
        }
    }

    /** How an expected call's arguments are compared with a run's call's. */
    public enum ArgumentsMatch {
        EXACT, SUBSET;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One expected call.
     *
     * @param name      the tool's name, or {@code server/tool}
     * @param arguments the arguments to compare (a JSON object); empty: any arguments match. Frozen
     *                  (read-only; a copy unless frozen already)
     */
    public record ExpectedCall(String name, Optional<JsonNode> arguments) {
        public ExpectedCall {
            Objects.requireNonNull(name, "name");
            arguments = Objects.requireNonNull(arguments, "arguments").map(FrozenJson::freeze);
        }

        boolean matches(CalledTool call, ArgumentsMatch mode) {
            int slash = name.indexOf('/');
            boolean named = slash < 0 ? name.equals(call.toolName())
                    : name.substring(0, slash).equals(call.serverName()) && name.substring(slash + 1).equals(call.toolName());
            if (!named || arguments.isEmpty()) {
                return named;
            }
            return mode == ArgumentsMatch.EXACT ? JsonMatch.equal(arguments.get(), call.arguments())
                    : JsonMatch.subset(arguments.get(), call.arguments());
        }

        @Override
        public String toString() {
            return appendTo(new StringBuilder(64)).toString();
        }

        /** Appends {@link #toString()}'s text: the arguments without a JSON generator ({@link CompactJson}). */
        StringBuilder appendTo(StringBuilder out) {
            out.append(name);
            if (arguments.isPresent()) {
                CompactJson.append(out.append(' '), arguments.get());
            }
            return out;
        }
    }

    public ToolTrajectory {
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(arguments, "arguments");
        calls = List.copyOf(calls);
    }

    /** Compares the run's calls with the expected ones. */
    Score check(List<CalledTool> run) {
        return check(run, expectedText());
    }

    /**
     * The expected calls as a check's reason shows them: made once per evaluator ({@link
     * Evaluators#tools}), as a dataset is read, without a stream or a JSON generator (a case's
     * text costs about what its line's parsing does).
     */
    String expectedText() {
        StringBuilder text = new StringBuilder(16 + 48 * calls.size()).append('[');
        for (int i = 0; i < calls.size(); i++) {
            calls.get(i).appendTo(i == 0 ? text : text.append(", "));
        }
        return text.append(']').toString();
    }

    /** {@link #check(List)} with the expected calls' text made already. */
    Score check(List<CalledTool> run, String expected) {
        String name = "tools";
        boolean ok = switch (match) {
            case STRICT -> run.size() == calls.size() && inOrder(run);
            case UNORDERED -> run.size() == calls.size() && pairs(run) == run.size();
            case SUBSET -> pairs(run) == run.size();
            case SUPERSET -> pairs(run) == calls.size();
        };
        StringBuilder reason = new StringBuilder(128).append(match.wireName()).append(ok ? " match: " : " mismatch: expected ")
                .append(expected).append(ok ? " against the run's [" : ", the run called [");
        for (int i = 0; i < run.size(); i++) {
            CalledTool call = run.get(i);
            reason.append(i == 0 ? "" : ", ").append(call.toolName().isEmpty() ? "(undecodable call)" : call.toolName());
            if (call.failed()) {
                reason.append(" (failed)");
            } else {
                CompactJson.append(reason.append(' '), call.arguments());     // every run's calls: no generator per call
            }
        }
        String text = reason.append(']').toString();
        return ok ? Score.pass(name, text) : Score.fail(name, text);
    }

    private boolean inOrder(List<CalledTool> run) {
        for (int i = 0; i < run.size(); i++) {
            if (!calls.get(i).matches(run.get(i), arguments)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The most pairs of (run call, expected call) that match, each used once: a bipartite
     * matching by augmenting paths, so that a loose expected call never takes the only run call
     * a stricter one could match.
     */
    private int pairs(List<CalledTool> run) {
        int[] pairedWith = new int[calls.size()];       // expected -> run index, or -1
        Arrays.fill(pairedWith, -1);
        int count = 0;
        for (int r = 0; r < run.size(); r++) {
            if (augment(r, run, pairedWith, new boolean[calls.size()])) {
                count++;
            }
        }
        return count;
    }

    private boolean augment(int r, List<CalledTool> run, int[] pairedWith, boolean[] seen) {
        for (int e = 0; e < calls.size(); e++) {
            if (!seen[e] && calls.get(e).matches(run.get(r), arguments)) {
                seen[e] = true;
                if (pairedWith[e] < 0 || augment(pairedWith[e], run, pairedWith, seen)) {
                    pairedWith[e] = r;
                    return true;
                }
            }
        }
        return false;
    }

}
