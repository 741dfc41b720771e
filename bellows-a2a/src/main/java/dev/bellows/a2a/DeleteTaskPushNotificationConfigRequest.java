package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** DeleteTaskPushNotificationConfig parameters. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeleteTaskPushNotificationConfigRequest(String tenant, String taskId, String id) {
}
