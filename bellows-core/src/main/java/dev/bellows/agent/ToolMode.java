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
    REACT,

    /**
     * The API's own tool calling: the tools' schemas go in the request ({@code tools}), the
     * model's calls come as structured deltas (OpenAI-compatible {@code tool_calls}, Anthropic
     * {@code tool_use}) and the results go back as tool-result messages. The system message
     * holds only the instructions, the loop's rules and the plan. The loop-ending tools and
     * {@code update_plan} are offered as tools like any other. Needs a provider and model that
     * support it (OpenAI, Anthropic, vLLM and Ollama with tool-capable models).
     */
    NATIVE
}
