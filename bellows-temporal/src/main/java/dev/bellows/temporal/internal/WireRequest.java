package dev.bellows.temporal.internal;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.ToolSpec;
import java.util.List;

/**
 * A {@link ChatRequest} as it travels to the model-call activity: the conversation and the
 * options, never a key (the provider on the worker holds that).
 */
public record WireRequest(String model, List<Message> messages, Double temperature, Double topP, Integer maxTokens,
                          List<String> stopSequences, List<ToolSpec> tools) {

    public WireRequest {
        messages = List.copyOf(messages);
        stopSequences = stopSequences == null ? List.of() : List.copyOf(stopSequences);
        tools = tools == null ? List.of() : List.copyOf(tools);
    }

    static WireRequest of(ChatRequest request) {
        return new WireRequest(request.model(), request.messages(), request.temperature().orElse(null),
                request.topP().orElse(null), request.maxTokens().orElse(null), request.stopSequences(), request.tools());
    }

    ChatRequest toRequest() {
        ChatRequest.Builder builder = ChatRequest.builder().model(model).messages(messages)
                .stopSequences(stopSequences).tools(tools);
        if (temperature != null) {
            builder.temperature(temperature);
        }
        if (topP != null) {
            builder.topP(topP);
        }
        if (maxTokens != null) {
            builder.maxTokens(maxTokens);
        }
        return builder.build();
    }

    /** The characters of the conversation: a cheap upper estimate of the payload before compression. */
    long characters() {
        long n = 0;
        for (Message message : messages) {
            n += message.content().length();
        }
        return n;
    }
}
