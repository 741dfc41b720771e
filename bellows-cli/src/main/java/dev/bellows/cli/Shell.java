package dev.bellows.cli;

import java.util.regex.Pattern;

/** Words for a command line a user may paste into a POSIX shell. */
final class Shell {

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private Shell() {
    }

    /** {@code word} as the shell reads it back: as it is when plain, else in single quotes. */
    static String quote(String word) {
        return PLAIN.matcher(word).matches() ? word : "'" + word.replace("'", "'\\''") + "'";
    }
}
