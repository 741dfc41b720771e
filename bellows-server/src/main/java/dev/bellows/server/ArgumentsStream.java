package dev.bellows.server;

/**
 * Finds the value of the top-level {@code "arguments"} key in a tool call's JSON as it streams
 * ({@code {"tool_name": "read_file", "arguments": {"path": "a.txt"}}}) and hands its text on
 * piece by piece: what AG-UI's {@code TOOL_CALL_ARGS} deltas carry. One pass, constant state,
 * whatever the chunking. Content that is not such JSON (an XML call, a dialect's own form)
 * yields nothing, and the caller sends the decoded arguments whole when the call ends.
 */
final class ArgumentsStream {

    private enum State { SCANNING, AFTER_KEY, BEFORE_VALUE, IN_VALUE, DONE }

    private State state = State.SCANNING;
    private int depth;
    private boolean inString;
    private boolean escape;
    /** At depth 1, whether the next string is a key. */
    private boolean expectKey;
    /** The key being read at depth 1, or null. */
    private StringBuilder key;
    private String lastKey;
    /** The value's first character: '{', '[', '"' or that of a literal. */
    private char valueKind;
    private boolean found;

    /** Whether an {@code "arguments"} value has begun. */
    boolean found() {
        return found;
    }

    /** Whether the value has been read to its end. */
    boolean complete() {
        return state == State.DONE;
    }

    /** The part of the value that {@code piece} holds, or "" when none. */
    String feed(String piece) {
        if (state == State.DONE) {
            return "";
        }
        StringBuilder out = null;
        for (int i = 0; i < piece.length(); i++) {
            char c = piece.charAt(i);
            if (state == State.IN_VALUE) {
                if (out == null) {
                    out = new StringBuilder(piece.length() - i);
                }
                if (inValue(c, out)) {
                    state = State.DONE;
                    break;
                }
                continue;
            }
            scan(c);
        }
        return out == null ? "" : out.toString();
    }

    /** Adds {@code c} to the value unless it ends a literal; true when the value is complete. */
    private boolean inValue(char c, StringBuilder out) {
        if (valueKind != '{' && valueKind != '[' && valueKind != '"') {    // a literal: 12, true, null
            if (c == ',' || c == '}' || Character.isWhitespace(c)) {
                return true;
            }
            out.append(c);
            return false;
        }
        out.append(c);
        if (inString) {
            if (escape) {
                escape = false;
            } else if (c == '\\') {
                escape = true;
            } else if (c == '"') {
                inString = false;
                return valueKind == '"' && depth == 1;
            }
            return false;
        }
        switch (c) {
            case '"' -> inString = true;
            case '{', '[' -> depth++;
            case '}', ']' -> {
                depth--;
                return depth == 1;
            }
            default -> { }
        }
        return false;
    }

    private void scan(char c) {
        if (inString) {
            if (escape) {
                escape = false;
                if (key != null) {
                    key.append(c);
                }
            } else if (c == '\\') {
                escape = true;
            } else if (c == '"') {
                inString = false;
                if (key != null) {
                    lastKey = key.toString();
                    key = null;
                    state = State.AFTER_KEY;
                }
            } else if (key != null) {
                key.append(c);
            }
            return;
        }
        if (Character.isWhitespace(c)) {
            return;
        }
        if (state == State.AFTER_KEY) {
            if (c == ':') {
                state = "arguments".equals(lastKey) ? State.BEFORE_VALUE : State.SCANNING;
                expectKey = false;
                return;
            }
            state = State.SCANNING;
        }
        if (state == State.BEFORE_VALUE) {
            state = State.IN_VALUE;
            found = true;
            valueKind = c;
            // the first character of the value: handed on by the next feed's loop
            if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            }
            pendingFirst = c;
            return;
        }
        switch (c) {
            case '"' -> {
                inString = true;
                if (depth == 1 && expectKey) {
                    key = new StringBuilder();
                }
            }
            case '{', '[' -> {
                depth++;
                expectKey = depth == 1 && c == '{';
            }
            case '}', ']' -> depth--;
            case ',' -> expectKey = depth == 1;
            default -> { }
        }
    }

    /** The value's first character, read while scanning: given out before what follows it. */
    private char pendingFirst;

    /** As {@link #feed}, with the value's first character included where the value begins. */
    String next(String piece) {
        boolean wasFound = found;
        String value = feed(piece);
        if (!wasFound && found) {
            return pendingFirst + value;
        }
        return value;
    }
}
