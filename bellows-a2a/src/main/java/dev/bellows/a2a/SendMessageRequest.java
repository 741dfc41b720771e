package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** SendMessage and SendStreamingMessage parameters. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SendMessageRequest(String tenant, Message message, SendMessageConfiguration configuration,
        Map<String, Object> metadata) {
}
