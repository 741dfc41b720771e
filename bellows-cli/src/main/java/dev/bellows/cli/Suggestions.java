package dev.bellows.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** "did you mean" for a mistyped command or flag: the known name closest to what was typed. */
final class Suggestions {

    private Suggestions() {
    }

    /** {@code "; did you mean 'run'?"}, or empty when nothing is close. */
    static String command(CommandSpec spec, String typed) {
        return closest(typed, new ArrayList<>(spec.subcommands().keySet()));
    }

    /** {@code "; did you mean '--api-key'?"}, or empty when nothing is close. */
    static String option(CommandSpec spec, String typed) {
        List<String> names = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            names.addAll(List.of(option.names()));
        }
        return closest(typed, names);
    }

    private static String closest(String typed, List<String> known) {
        String lower = typed.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String name : known) {
            int distance = distance(lower, name.toLowerCase(Locale.ROOT));
            if (distance < bestDistance || distance == bestDistance && best != null && name.length() < best.length()) {
                best = name;
                bestDistance = distance;
            }
        }
        int tolerance = Math.max(1, Math.min(3, typed.length() / 3));
        if (best != null && bestDistance <= tolerance) {
            return "; did you mean '" + best + "'?";
        }
        // A prefix ("mock" for "mock-server") is as good a hint as a typo.
        for (String name : known) {
            if (lower.length() >= 3 && name.toLowerCase(Locale.ROOT).startsWith(lower)) {
                return "; did you mean '" + name + "'?";
            }
        }
        return "";
    }

    /** Optimal string alignment distance: a swap of neighbours counts one. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int best = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    best = Math.min(best, d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        return d[a.length()][b.length()];
    }
}
