package dev.bellows.tool;

import java.util.Locale;

/** How far apart two names are, for "did you mean" suggestions. */
final class EditDistance {

    private EditDistance() {
    }

    /**
     * The optimal-string-alignment distance between {@code a} and {@code b}, ignoring case:
     * insertions, deletions, substitutions and swaps of two neighbouring characters count one.
     */
    static int between(String a, String b) {
        String s = a.toLowerCase(Locale.ROOT);
        String t = b.toLowerCase(Locale.ROOT);
        int n = s.length();
        int m = t.length();
        int[][] d = new int[n + 1][m + 1];
        for (int i = 0; i <= n; i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= m; j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= n; i++) {
            for (int j = 1; j <= m; j++) {
                int cost = s.charAt(i - 1) == t.charAt(j - 1) ? 0 : 1;
                int best = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && s.charAt(i - 1) == t.charAt(j - 2) && s.charAt(i - 2) == t.charAt(j - 1)) {
                    best = Math.min(best, d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        return d[n][m];
    }

    /**
     * The most edits a name of this length may be away from a known one and still be worth
     * suggesting: one for short names, up to three for long ones.
     */
    static int tolerance(String asked) {
        return Math.max(1, Math.min(3, asked.length() / 3));
    }

    /** True when {@code candidate} is close enough to {@code asked} to suggest it. */
    static boolean isClose(String asked, String candidate) {
        return between(asked, candidate) <= tolerance(asked);
    }
}
