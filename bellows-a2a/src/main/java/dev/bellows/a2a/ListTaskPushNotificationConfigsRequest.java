package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** ListTaskPushNotificationConfigs parameters. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ListTaskPushNotificationConfigsRequest(String tenant, String taskId, Integer pageSize, String pageToken) {
}
