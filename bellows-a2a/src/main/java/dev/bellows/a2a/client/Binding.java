package dev.bellows.a2a.client;

import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.ListTaskPushNotificationConfigsResponse;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.ListTasksResponse;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import java.net.URI;

/** The A2A operations over one protocol binding of one agent interface. Thread-safe. */
interface Binding {

    SendMessageResponse send(SendMessageRequest request);

    TaskEvents stream(SendMessageRequest request);

    Task getTask(String id, Integer historyLength);

    ListTasksResponse listTasks(ListTasksRequest request);

    Task cancelTask(String id);

    TaskEvents subscribe(String id);

    TaskPushNotificationConfig createPushConfig(TaskPushNotificationConfig config);

    TaskPushNotificationConfig getPushConfig(String taskId, String id);

    ListTaskPushNotificationConfigsResponse listPushConfigs(String taskId);

    void deletePushConfig(String taskId, String id);

    /** The JSON as the model's type; an answer of another shape is the agent's fault. */
    static <T> T read(JsonNode json, Class<T> type, URI uri) {
        try {
            T value = Http.JSON.treeToValue(json, type);
            if (value == null) {
                throw new IllegalArgumentException("null");
            }
            return value;
        } catch (tools.jackson.core.JacksonException | IllegalArgumentException e) {
            throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0, Http.display(uri)
                    + " answered with something that is not an A2A " + type.getSimpleName(), null);
        }
    }
}
