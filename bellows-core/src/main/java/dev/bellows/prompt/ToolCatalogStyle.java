package dev.bellows.prompt;

/**
 * How the system prompt lists the tools (tag and ReAct modes; native tool calling sends the
 * tools in the request instead).
 */
public enum ToolCatalogStyle {

    /**
     * The default, and what the CLI contract asks for: every tool under a heading naming its
     * server, as {@code name: description} followed by its JSON Schema exactly as registered,
     * minified on one line. Nothing of the schema is left out.
     * <pre>{@code
     * server_name "local":
     * add: Adds two integers
     * {"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}
     * }</pre>
     */
    JSON_SCHEMA,

    /**
     * Opt-in, to save tokens: each tool as a TypeScript-like signature with its description
     * as comments, the way OpenAI's harmony format shows functions, and servers named only when
     * some tool is not on server {@code local}. This departs from the default JSON Schema
     * catalog: keywords that do not change what a valid call looks like ({@code title},
     * {@code additionalProperties: false}, ...) are left out, and a schema a signature cannot
     * say faithfully ({@code $ref}, {@code allOf}, ...) is shown as its JSON instead.
     * <pre>{@code
     * Tools:
     * // Adds two integers
     * add(a: integer, b: integer)
     * }</pre>
     */
    SIGNATURES
}
