package dev.bellows.tool;

/**
 * What the content of a {@code <tool>} block decoded to: a {@link ToolCall} ready to run,
 * or a {@link ToolCallError} that says what is wrong, in words the model can act on.
 */
public sealed interface DecodedToolCall permits ToolCall, ToolCallError {
}
