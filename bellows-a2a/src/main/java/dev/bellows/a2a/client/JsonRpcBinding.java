package dev.bellows.a2a.client;

import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.CancelTaskRequest;
import dev.bellows.a2a.DeleteTaskPushNotificationConfigRequest;
import dev.bellows.a2a.GetTaskPushNotificationConfigRequest;
import dev.bellows.a2a.GetTaskRequest;
import dev.bellows.a2a.JsonRpcRequest;
import dev.bellows.a2a.ListTaskPushNotificationConfigsRequest;
import dev.bellows.a2a.ListTaskPushNotificationConfigsResponse;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.ListTasksResponse;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.SubscribeToTaskRequest;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;

/** A2A over JSON-RPC 2.0: every operation a POST of one request object to the interface's URL. */
final class JsonRpcBinding implements Binding {

    private static final String CONTENT_TYPE = "application/json";

    private final Http http;
    private final URI uri;
    private final String tenant;
    private final AtomicLong ids = new AtomicLong();

    JsonRpcBinding(Http http, URI uri, String tenant) {
        this.http = http;
        this.uri = uri;
        this.tenant = tenant;
    }

    private JsonNode call(String method, Object params) {
        JsonNode response = http.json("POST", uri, CONTENT_TYPE, JsonRpcRequest.of(ids.incrementAndGet(), method, params));
        java.util.Optional<RuntimeException> error = http.errorIn(response, uri);
        if (error.isPresent()) {
            throw error.get();
        }
        if (!response.has("result")) {
            throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0, Http.display(uri)
                    + " answered " + method + " with neither a result nor an error", null);
        }
        return response.get("result");
    }

    private TaskEvents events(String method, Object params) {
        return new TaskEvents(http.events("POST", uri, CONTENT_TYPE, JsonRpcRequest.of(ids.incrementAndGet(), method, params)),
                uri, http, json -> json.has("result") ? Binding.read(json.get("result"), StreamResponse.class, uri) : null);
    }

    @Override
    public SendMessageResponse send(SendMessageRequest request) {
        return Binding.read(call("SendMessage", A2aClient.withTenant(request, tenant)), SendMessageResponse.class, uri);
    }

    @Override
    public TaskEvents stream(SendMessageRequest request) {
        return events("SendStreamingMessage", A2aClient.withTenant(request, tenant));
    }

    @Override
    public Task getTask(String id, Integer historyLength) {
        return Binding.read(call("GetTask", new GetTaskRequest(tenant, id, historyLength)), Task.class, uri);
    }

    @Override
    public ListTasksResponse listTasks(ListTasksRequest r) {
        return Binding.read(call("ListTasks", new ListTasksRequest(tenant, r.contextId(), r.status(), r.pageSize(),
                r.pageToken(), r.historyLength(), r.statusTimestampAfter(), r.includeArtifacts())), ListTasksResponse.class, uri);
    }

    @Override
    public Task cancelTask(String id) {
        return Binding.read(call("CancelTask", new CancelTaskRequest(tenant, id, null)), Task.class, uri);
    }

    @Override
    public TaskEvents subscribe(String id) {
        return events("SubscribeToTask", new SubscribeToTaskRequest(tenant, id));
    }

    @Override
    public TaskPushNotificationConfig createPushConfig(TaskPushNotificationConfig c) {
        return Binding.read(call("CreateTaskPushNotificationConfig", new TaskPushNotificationConfig(tenant, c.id(),
                c.taskId(), c.url(), c.token(), c.authentication())), TaskPushNotificationConfig.class, uri);
    }

    @Override
    public TaskPushNotificationConfig getPushConfig(String taskId, String id) {
        return Binding.read(call("GetTaskPushNotificationConfig", new GetTaskPushNotificationConfigRequest(tenant, taskId, id)),
                TaskPushNotificationConfig.class, uri);
    }

    @Override
    public ListTaskPushNotificationConfigsResponse listPushConfigs(String taskId) {
        return Binding.read(call("ListTaskPushNotificationConfigs",
                new ListTaskPushNotificationConfigsRequest(tenant, taskId, null, null)),
                ListTaskPushNotificationConfigsResponse.class, uri);
    }

    @Override
    public void deletePushConfig(String taskId, String id) {
        call("DeleteTaskPushNotificationConfig", new DeleteTaskPushNotificationConfigRequest(tenant, taskId, id));
    }
}
