package dev.bellows.agent.internal;

import dev.bellows.agent.AgentBuilder;
import dev.bellows.tool.ToolCall;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A pattern naming tools: {@code SERVER/TOOL}, where {@code *} matches any run of characters
 * ({@code files/*}, <code>&#42;/write_file</code>), or {@code *} alone for every tool. It is how
 * {@link AgentBuilder#requireApproval(String)} and the CLI's {@code --approve} name the tools
 * whose calls need a person's approval. Immutable.
 *
 * <pre>{@code
 * ToolPattern files = ToolPattern.of("files/*");
 * files.matches("files", "write_file");    // true
 * }</pre>
 */
public final class ToolPattern {

    private final String text;
    private final Pattern regex;

    private ToolPattern(String text, Pattern regex) {
        this.text = text;
        this.regex = regex;
    }

    /**
     * The pattern, checked.
     *
     * @throws IllegalArgumentException for one that is not {@code SERVER/TOOL} or {@code *}
     */
    public static ToolPattern of(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        String trimmed = pattern.strip();
        if (trimmed.isEmpty() || (!trimmed.equals("*") && trimmed.indexOf('/') < 1)) {
            throw new IllegalArgumentException("an approval pattern is SERVER/TOOL, * matching any run of characters"
                    + " (files/*, */write_file, *), not \"" + pattern + "\"");
        }
        String[] parts = trimmed.split("\\*", -1);
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                regex.append(".*");
            }
            if (!parts[i].isEmpty()) {
                regex.append(Pattern.quote(parts[i]));
            }
        }
        return new ToolPattern(trimmed, Pattern.compile(regex.toString(), Pattern.DOTALL));
    }

    /** Whether it names the tool {@code toolName} of server {@code serverName}. */
    public boolean matches(String serverName, String toolName) {
        return regex.matcher(serverName + "/" + toolName).matches();
    }

    /** Whether it names the call's tool. */
    public boolean matches(ToolCall call) {
        return matches(call.serverName(), call.toolName());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ToolPattern that && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The pattern as written. */
    @Override
    public String toString() {
        return text;
    }
}
