package dev.bellows.a2a.server;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.CancelTaskRequest;
import dev.bellows.a2a.DeleteTaskPushNotificationConfigRequest;
import dev.bellows.a2a.GetTaskPushNotificationConfigRequest;
import dev.bellows.a2a.GetTaskRequest;
import dev.bellows.a2a.JsonRpcError;
import dev.bellows.a2a.JsonRpcResponse;
import dev.bellows.a2a.ListTaskPushNotificationConfigsRequest;
import dev.bellows.a2a.ListTaskPushNotificationConfigsResponse;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.SubscribeToTaskRequest;
import dev.bellows.a2a.TaskPushNotificationConfig;
import dev.bellows.server.ServerExchange;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The JSON-RPC 2.0 binding: one method per request, errors as JSON-RPC errors (HTTP 200), streams as SSE. */
final class JsonRpcBinding extends Binding {

    JsonRpcBinding(TaskEngine engine, Streams streams) {
        super(engine, streams);
    }

    void handle(ServerExchange exchange, byte[] body, String principal, A2aException versionError) throws IOException {
        if (!exchange.method().equals("POST")) {
            Http.send(exchange, 405, Map.of("Allow", "POST"), errorBody(null, new A2aException(A2aError.INVALID_REQUEST,
                    "POST a JSON-RPC request")));
            return;
        }
        JsonNode request;
        try {
            request = Json.MAPPER.readTree(body);
        } catch (JacksonException e) {
            error(exchange, null, new A2aException(A2aError.PARSE_ERROR, "the body is not valid JSON"));
            return;
        }
        if (request == null || !request.isObject()) {
            error(exchange, null, new A2aException(A2aError.INVALID_REQUEST, "the body is not a JSON-RPC request object"));
            return;
        }
        JsonNode idNode = request.get("id");
        Object id = idNode == null || idNode.isNull() ? null
                : idNode.isString() ? idNode.asString() : idNode.isIntegralNumber() ? (Object) idNode.asLong() : null;
        boolean idValid = idNode == null || idNode.isNull() || idNode.isString() || idNode.isIntegralNumber();
        JsonNode method = request.get("method");
        if (!"2.0".equals(request.path("jsonrpc").asString(null)) || method == null || !method.isString() || !idValid) {
            error(exchange, id, new A2aException(A2aError.INVALID_REQUEST, "not a JSON-RPC 2.0 request: it needs"
                    + " \"jsonrpc\": \"2.0\", a string \"method\" and a string or number \"id\""));
            return;
        }
        JsonNode params = request.get("params");
        if (params != null && !params.isNull() && !params.isObject()) {
            error(exchange, id, new A2aException(A2aError.INVALID_PARAMS, "params: must be an object"));
            return;
        }
        ObjectNode given = params == null || params.isNull() ? Json.MAPPER.createObjectNode() : (ObjectNode) params;
        String name = method.asString();
        if (!METHODS.contains(name)) {
            error(exchange, id, new A2aException(A2aError.METHOD_NOT_FOUND, "no method \"" + name + "\""));
            return;
        }
        if (versionError != null) {
            error(exchange, id, versionError);
            return;
        }
        try {
            dispatch(exchange, id, name, given, principal);
        } catch (A2aException e) {
            error(exchange, id, e);
        }
    }

    private static final List<String> METHODS = List.of("SendMessage", "SendStreamingMessage", "GetTask", "ListTasks",
            "CancelTask", "SubscribeToTask", "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
            "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard");

    private void dispatch(ServerExchange exchange, Object id, String method, ObjectNode params, String principal)
            throws IOException {
        switch (method) {
            case "SendMessage" -> result(exchange, id, send(principal, params(params, SendMessageRequest.class)));
            case "SendStreamingMessage" -> sendStreaming(exchange, id, principal,
                    params(params, SendMessageRequest.class), frames(id));
            case "GetTask" -> {
                GetTaskRequest get = params(params, GetTaskRequest.class);
                result(exchange, id, engine.get(principal, required(get.id(), "id"), get.historyLength()));
            }
            case "ListTasks" -> result(exchange, id, engine.list(principal, params(params, ListTasksRequest.class)));
            case "CancelTask" -> result(exchange, id, engine.cancel(principal,
                    required(params(params, CancelTaskRequest.class).id(), "id")));
            case "SubscribeToTask" -> subscribe(exchange, id, principal,
                    required(params(params, SubscribeToTaskRequest.class).id(), "id"), frames(id));
            case "CreateTaskPushNotificationConfig" -> {
                TaskPushNotificationConfig config = params(params, TaskPushNotificationConfig.class);
                result(exchange, id, engine.putPush(principal, required(config.taskId(), "taskId"), config));
            }
            case "GetTaskPushNotificationConfig" -> {
                GetTaskPushNotificationConfigRequest get = params(params, GetTaskPushNotificationConfigRequest.class);
                result(exchange, id, engine.getPush(principal, required(get.taskId(), "taskId"), required(get.id(), "id")));
            }
            case "ListTaskPushNotificationConfigs" -> {
                ListTaskPushNotificationConfigsRequest list = params(params, ListTaskPushNotificationConfigsRequest.class);
                result(exchange, id, new ListTaskPushNotificationConfigsResponse(
                        engine.listPush(principal, required(list.taskId(), "taskId")), ""));
            }
            case "DeleteTaskPushNotificationConfig" -> {
                DeleteTaskPushNotificationConfigRequest delete = params(params, DeleteTaskPushNotificationConfigRequest.class);
                engine.deletePush(principal, required(delete.taskId(), "taskId"), required(delete.id(), "id"));
                result(exchange, id, Map.of());
            }
            case "GetExtendedAgentCard" -> throw new A2aException(A2aError.UNSUPPORTED_OPERATION,
                    "this agent has no extended agent card (capabilities.extendedAgentCard is not set)");
            default -> throw new A2aException(A2aError.METHOD_NOT_FOUND, "no method \"" + method + "\"");
        }
    }

    static String required(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new A2aException(A2aError.INVALID_PARAMS, field + ": required");
        }
        return value;
    }

    static <T> T params(JsonNode params, Class<T> type) {
        try {
            return Json.MAPPER.treeToValue(Json.camelCase(params.deepCopy()), type);
        } catch (JacksonException | IllegalArgumentException e) {
            String detail = e instanceof JacksonException json ? json.getOriginalMessage() : e.getMessage();
            throw new A2aException(A2aError.INVALID_PARAMS, "invalid parameters: " + firstLine(detail));
        }
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    private static Function<StreamResponse, byte[]> frames(Object id) {
        return event -> {
            return Json.MAPPER.writeValueAsBytes(JsonRpcResponse.result(id, event));
        };
    }

    private void result(ServerExchange exchange, Object id, Object result) throws IOException {
        Http.send(exchange, 200, Map.of(), Json.MAPPER.writeValueAsBytes(JsonRpcResponse.result(id, result)));
    }

    @Override
    void error(ServerExchange exchange, Object requestId, A2aException error) throws IOException {
        Http.send(exchange, 200, Map.of(), errorBody(requestId, error));
    }

    static byte[] errorBody(Object id, A2aException error) {
        A2aError kind = error.error();
        List<Map<String, Object>> data = List.of(Json.MAPPER.convertValue(Http.errorInfo(kind), Map.class));
        return Json.MAPPER.writeValueAsBytes(JsonRpcResponse.error(id, new JsonRpcError(kind.code(),
                    error.getMessage(), data)));
    }
}
