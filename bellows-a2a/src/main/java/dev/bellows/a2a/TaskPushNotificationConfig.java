package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** A webhook that receives a task's events (each a {@link StreamResponse} POSTed as JSON), with the token or credentials the server sends with them. {@code toString} leaves the secrets out. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TaskPushNotificationConfig(String tenant, String id, String taskId, String url, String token,
        AuthenticationInfo authentication) {
    @Override
    public String toString() {
        return "TaskPushNotificationConfig[id=" + id + ", taskId=" + taskId + ", url=" + url + "]";
    }
}
