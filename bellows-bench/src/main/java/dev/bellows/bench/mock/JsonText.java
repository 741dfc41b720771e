package dev.bellows.bench.mock;

/** JSON text for the lean mocks' canned answers, written by hand so no library allocates. */
public final class JsonText {

    private JsonText() {
    }

    /**
     * The text as a JSON string, quoted. Escapes only what the mocks' own texts hold (quotes,
     * backslashes, line feeds): they are fixed answers, not user input.
     */
    public static String string(String text) {
        StringBuilder json = new StringBuilder(text.length() + 2).append('"');
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                default -> json.append(c);
            }
        }
        return json.append('"').toString();
    }
}
