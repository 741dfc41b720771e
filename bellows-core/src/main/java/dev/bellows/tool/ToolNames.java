package dev.bellows.tool;

import java.util.regex.Pattern;

/** The tool names providers accept, checked where tools are made so a bad one fails at startup. */
final class ToolNames {

    // What OpenAI's and Anthropic's tool APIs accept; anything else is refused by one of them.
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private ToolNames() {
    }

    static String requireValid(String name) {
        if (name == null) {
            throw new IllegalArgumentException("a tool needs a name");
        }
        if (!VALID.matcher(name).matches()) {
            throw new IllegalArgumentException("tool name '" + name + "' is not valid: use 1 to 64 letters, "
                    + "digits, '_' or '-' (what OpenAI and Anthropic accept), such as 'get_weather'");
        }
        return name;
    }
}
