package dev.bellows.stream.internal;


/**
 * An early-name sniffer for the dialects whose body starts with the name in a fixed frame
 * ({@code <function=NAME>}, {@code NAME[ARGS]}, {@code functions.NAME:0}, ...): it keeps the
 * start of the body (at most {@link #LIMIT} characters) and asks its {@link Rule} after each
 * character whether the name is now complete. A rule only does real work on the few
 * characters that can end a name, so the cost per character stays constant.
 */
final class PrefixNameSniffer implements NameSniffer {

    /** Decides from the start of the body whether the name is complete. */
    interface Rule {
        /**
         * @param prefix the body so far, leading whitespace dropped; its last character is the new one
         * @return {@code null} to read on, {@link #NONE} if no name can come, else the name
         */
        String check(CharSequence prefix);
    }

    /** The rule's answer when the body cannot give a name any more. */
    static final String NONE = new String("");

    /** A name not found within this many characters is not looked for any further. */
    static final int LIMIT = 512;

    private final Rule rule;
    private final StringBuilder prefix = new StringBuilder();
    private boolean done;

    PrefixNameSniffer(Rule rule) {
        this.rule = rule;
    }

    @Override
    public String feed(CharSequence text, int from, int to) {
        for (int i = from; i < to && !done; i++) {
            char c = text.charAt(i);
            if (prefix.isEmpty() && TagScanner.isWhitespace(c)) {
                continue;
            }
            prefix.append(c);
            String verdict = rule.check(prefix);
            if (verdict != null || prefix.length() >= LIMIT) {
                done = true;
                prefix.setLength(0);
                prefix.trimToSize();
                // The identity test is the point: NONE is a sentinel, not the empty name.
                if (verdict != null && verdict != NONE && !verdict.isEmpty()) {
                    return verdict;
                }
            }
        }
        return null;
    }

    @Override
    public String endsBefore(char next) {
        if (done || prefix.isEmpty() && TagScanner.isWhitespace(next)) {
            return null;
        }
        prefix.append(next);
        String verdict = rule.check(prefix);
        prefix.setLength(prefix.length() - 1);
        // Only a name counts: no name yet, or none, is decided when the character is fed or the block ends.
        if (verdict == null || verdict == NONE || verdict.isEmpty()) {
            return null;
        }
        done = true;
        prefix.setLength(0);
        prefix.trimToSize();
        return verdict;
    }

    @Override
    public boolean isDone() {
        return done;
    }

    /** Whether {@code prefix} could still become {@code start} or already starts with it. */
    static boolean compatible(CharSequence prefix, String start) {
        int n = Math.min(prefix.length(), start.length());
        for (int i = 0; i < n; i++) {
            if (prefix.charAt(i) != start.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** A name may not hold whitespace or markup. */
    static String checkedName(String name) {
        if (name.isEmpty()) {
            return NONE;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (TagScanner.isWhitespace(c) || c == '<' || c == '>' || c == '"' || c == '\'') {
                return NONE;
            }
        }
        return name;
    }
}
