package dev.bellows.provider;

import java.util.Objects;

/**
 * A tool call the model made through the API's own tool calling, as it goes back to the API
 * in the assistant's message.
 *
 * @param id        the API's id of the call, which the {@link Role#TOOL} result names
 * @param name      the function name, as offered in the request's {@link ToolSpec}
 * @param arguments the arguments as the model wrote them: JSON text, possibly invalid
 */
public record NativeToolCall(String id, String name, String arguments) {

    public NativeToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }
}
