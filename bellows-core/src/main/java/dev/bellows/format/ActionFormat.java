package dev.bellows.format;

/**
 * How a ReAct agent's model writes the tool calls of its {@code action} section. Both take one
 * call or a list of calls, each with {@code tool_name} (or {@code name}), an optional
 * {@code server_name} (default {@code local}) and {@code arguments}, as the {@code <tool>}
 * blocks' JSON does.
 */
public enum ActionFormat {
    /** {@code {"tool_name": "...", "arguments": {...}}} or an array of such objects. */
    JSON,
    /** A mapping with the same keys, or a list of mappings. */
    YAML
}
