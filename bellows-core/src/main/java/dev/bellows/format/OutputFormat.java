package dev.bellows.format;

/** How a {@link dev.bellows.tool.chain.ToolChain} writes a tool's output for the model when it is not a string. */
public enum OutputFormat {
    /** Compact JSON, one line: the fewest tokens, and what models read most reliably. */
    JSON,
    /** Block-style YAML: easier on the eye for deep or text-heavy outputs. */
    YAML
}
