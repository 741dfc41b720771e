package dev.bellows.prompt;

/**
 * The tool-call format the system prompt teaches the model. Only the teaching differs: the
 * stream parser reads both forms whatever is chosen, so a model that slips into the other one
 * is still understood. {@code server_name} is taught whenever the catalog names servers (always
 * with the default {@link ToolCatalogStyle#JSON_SCHEMA}) as only needed for a tool not on server
 * {@code local}; the parser takes {@code local} when it is left out.
 */
public enum ToolCallFormat {

    /**
     * One JSON object in the tool tag (the default):
     * <pre>{@code
     * <tool>
     * {"tool_name": "task_completion", "arguments": {"result": "..."}}
     * </tool>
     * }</pre>
     */
    JSON,

    /**
     * XML elements in the tool tag, each argument an element of its own; easier for some
     * models than escaping long text inside JSON strings:
     * <pre>{@code
     * <tool>
     * <tool_name>task_completion</tool_name>
     * <arguments><result>...</result></arguments>
     * </tool>
     * }</pre>
     */
    XML
}
