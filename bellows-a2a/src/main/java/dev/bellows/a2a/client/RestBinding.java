package dev.bellows.a2a.client;

import dev.bellows.a2a.ListTaskPushNotificationConfigsResponse;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.ListTasksResponse;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A2A over HTTP+JSON: resources under the interface's URL ({@code /message:send}, {@code /tasks/{id}}, ...). */
final class RestBinding implements Binding {

    private static final String CONTENT_TYPE = "application/a2a+json";

    private final Http http;
    private final String base;

    RestBinding(Http http, URI uri, String tenant) {
        this.http = http;
        String root = uri.toString().replaceAll("/+$", "");
        this.base = tenant == null || tenant.isEmpty() ? root : root + "/" + encode(tenant);
    }

    private URI uri(String path, Map<String, Object> query) {
        List<String> pairs = new ArrayList<>();
        query.forEach((key, value) -> {
            if (value != null && !(value instanceof String s && s.isEmpty())) {
                pairs.add(encode(key) + "=" + encode(String.valueOf(value)));
            }
        });
        return URI.create(base + path + (pairs.isEmpty() ? "" : "?" + String.join("&", pairs)));
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String task(String id) {
        return "/tasks/" + encode(id);
    }

    private TaskEvents events(URI uri, Object body) {
        return new TaskEvents(http.events("POST", uri, CONTENT_TYPE, body), uri, http,
                json -> Binding.read(json, StreamResponse.class, uri));
    }

    @Override
    public SendMessageResponse send(SendMessageRequest request) {
        URI uri = uri("/message:send", Map.of());
        return Binding.read(http.json("POST", uri, CONTENT_TYPE, A2aClient.withTenant(request, null)), SendMessageResponse.class, uri);
    }

    @Override
    public TaskEvents stream(SendMessageRequest request) {
        return events(uri("/message:stream", Map.of()), A2aClient.withTenant(request, null));
    }

    @Override
    public Task getTask(String id, Integer historyLength) {
        java.util.Map<String, Object> query = new java.util.LinkedHashMap<>();
        query.put("historyLength", historyLength);
        URI uri = uri(task(id), query);
        return Binding.read(http.json("GET", uri, CONTENT_TYPE, null), Task.class, uri);
    }

    @Override
    public ListTasksResponse listTasks(ListTasksRequest r) {
        java.util.Map<String, Object> query = new java.util.LinkedHashMap<>();
        query.put("contextId", r.contextId());
        query.put("status", r.status() == null ? null : r.status().wireName());
        query.put("pageSize", r.pageSize());
        query.put("pageToken", r.pageToken());
        query.put("historyLength", r.historyLength());
        query.put("statusTimestampAfter", r.statusTimestampAfter());
        query.put("includeArtifacts", r.includeArtifacts());
        URI uri = uri("/tasks", query);
        return Binding.read(http.json("GET", uri, CONTENT_TYPE, null), ListTasksResponse.class, uri);
    }

    @Override
    public Task cancelTask(String id) {
        URI uri = uri(task(id) + ":cancel", Map.of());
        return Binding.read(http.json("POST", uri, CONTENT_TYPE, Map.of()), Task.class, uri);
    }

    @Override
    public TaskEvents subscribe(String id) {
        return events(uri(task(id) + ":subscribe", Map.of()), Map.of());
    }

    @Override
    public TaskPushNotificationConfig createPushConfig(TaskPushNotificationConfig c) {
        URI uri = uri(task(c.taskId()) + "/pushNotificationConfigs", Map.of());
        return Binding.read(http.json("POST", uri, CONTENT_TYPE, c), TaskPushNotificationConfig.class, uri);
    }

    @Override
    public TaskPushNotificationConfig getPushConfig(String taskId, String id) {
        URI uri = uri(task(taskId) + "/pushNotificationConfigs/" + encode(id), Map.of());
        return Binding.read(http.json("GET", uri, CONTENT_TYPE, null), TaskPushNotificationConfig.class, uri);
    }

    @Override
    public ListTaskPushNotificationConfigsResponse listPushConfigs(String taskId) {
        URI uri = uri(task(taskId) + "/pushNotificationConfigs", Map.of());
        return Binding.read(http.json("GET", uri, CONTENT_TYPE, null), ListTaskPushNotificationConfigsResponse.class, uri);
    }

    @Override
    public void deletePushConfig(String taskId, String id) {
        http.json("DELETE", uri(task(taskId) + "/pushNotificationConfigs/" + encode(id), Map.of()), CONTENT_TYPE, null);
    }
}
