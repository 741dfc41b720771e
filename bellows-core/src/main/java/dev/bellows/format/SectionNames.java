package dev.bellows.format;

/**
 * The one rule for section names, shared by both formats so that a section registered for one
 * works in the other: an ASCII letter or {@code _}, then letters, digits, {@code _ - . :} (the
 * tag-name rule of the stream parser). Names are compared ASCII case-insensitively, by their
 * lower-case form, which is also the key {@link TextFormat#parse} returns.
 */
final class SectionNames {

    private SectionNames() {
    }

    static boolean isStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    static boolean isPart(char c) {
        return isStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':';
    }

    static boolean isValid(CharSequence name) {
        if (name.isEmpty() || !isStart(name.charAt(0))) {
            return false;
        }
        for (int i = 1; i < name.length(); i++) {
            if (!isPart(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Throws with a message that says what a name may contain. */
    static String require(String name) {
        if (name == null) {
            throw new NullPointerException("section name");
        }
        if (!isValid(name)) {
            throw new IllegalArgumentException("section name '" + name + "' is not valid: it must start with an"
                    + " ASCII letter or '_' and contain only letters, digits, '_', '-', '.' or ':'");
        }
        return name;
    }

    /** The key a name is matched and returned by. ASCII only, so no locale can change it. */
    static String key(CharSequence name) {
        StringBuilder key = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            key.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        return key.toString();
    }

    /**
     * A valid name made from any text (a tool name from an MCP server may hold characters a
     * section name cannot): each character that may not appear becomes {@code _}.
     */
    static String sanitize(String text) {
        if (isValid(text)) {
            return text;
        }
        StringBuilder name = new StringBuilder(text.length() + 1);
        if (text.isEmpty() || !isStart(text.charAt(0))) {
            name.append('_');
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            name.append(isPart(c) ? c : '_');
        }
        return name.toString();
    }
}
