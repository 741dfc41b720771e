package dev.bellows.memory;

import java.util.regex.Pattern;

/** The rule for session names, shared by every {@link SessionStore}. */
public final class SessionNames {

    /** Safe as a file name and in a terminal: stores may name files after sessions. */
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,99}");

    private SessionNames() {
    }

    /**
     * Gives the name back when it is valid: 1 to 100 letters, digits, {@code .}, {@code _} or
     * {@code -}, not starting with {@code .} or {@code -}.
     *
     * @throws IllegalArgumentException naming the rule, for any other name
     */
    public static String check(String name) {
        if (name == null || !VALID.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid session name " + quote(name) + ": use 1 to 100 letters,"
                    + " digits, '.', '_' or '-', not starting with '.' or '-'");
        }
        return name;
    }

    private static String quote(String name) {
        if (name == null) {
            return "(none)";
        }
        String shown = name.length() > 40 ? name.substring(0, 40) + "..." : name;
        return '"' + shown.replaceAll("\\p{Cntrl}", "?") + '"';
    }
}
