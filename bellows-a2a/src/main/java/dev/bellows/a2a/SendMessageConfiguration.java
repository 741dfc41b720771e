package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** How a message is to be handled: accepted output media types, a push config to register, history to return, and whether to return before the task pauses or ends. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SendMessageConfiguration(List<String> acceptedOutputModes, TaskPushNotificationConfig taskPushNotificationConfig,
        Integer historyLength, Boolean returnImmediately) {
}
