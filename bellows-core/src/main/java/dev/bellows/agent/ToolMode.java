package dev.bellows.agent;

/**
 * How the model calls tools, and so how the agent reads its streamed answers into actions.
 * Only the reading and the prompts differ; the loop around them is the same.
 */
public enum ToolMode {

    /**
     * Tool calls in inline tags ({@code <tool>{"tool_name": ...}</tool>}), taught by the system
     * prompt, which also holds the tool catalog (the default). Works with any model.
     */
    TAGS,

    /**
     * ReAct sections: {@code thought}, {@code action} (the tool calls, JSON or YAML) and
     * {@code answer}, as Markdown headings or XML tags ({@link ReActAgent}).
     */
    REACT
}
