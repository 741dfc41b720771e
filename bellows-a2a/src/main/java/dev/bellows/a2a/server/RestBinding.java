package dev.bellows.a2a.server;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.ListTaskPushNotificationConfigsResponse;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.TaskPushNotificationConfig;
import dev.bellows.a2a.TaskState;
import dev.bellows.server.ServerExchange;
import java.io.IOException;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The HTTP+JSON binding: resources and verbs, errors as google.rpc.Status with the A2A error's HTTP status. */
final class RestBinding extends Binding {

    private static final Pattern TASK = Pattern.compile("/tasks/([^/:]+)");
    private static final Pattern TASK_ACTION = Pattern.compile("/tasks/([^/:]+):(cancel|subscribe)");
    private static final Pattern CONFIGS = Pattern.compile("/tasks/([^/:]+)/pushNotificationConfigs");
    private static final Pattern CONFIG = Pattern.compile("/tasks/([^/:]+)/pushNotificationConfigs/([^/]+)");

    RestBinding(TaskEngine engine, Streams streams) {
        super(engine, streams);
    }

    void handle(ServerExchange exchange, String path, byte[] body, String principal, A2aException versionError)
            throws IOException {
        String method = exchange.method();
        Matcher m;
        Route route;
        if (path.equals("/message:send") || path.equals("/message:stream")) {
            route = new Route("POST", () -> {
                SendMessageRequest request = body(body, SendMessageRequest.class);
                if (path.endsWith(":send")) {
                    Http.json(exchange, 200, send(principal, request));
                } else {
                    sendStreaming(exchange, null, principal, request, FRAMES);
                }
            });
        } else if (path.equals("/tasks")) {
            route = new Route("GET", () -> Http.json(exchange, 200, engine.list(principal, listRequest(exchange))));
        } else if ((m = TASK_ACTION.matcher(path)).matches()) {
            String id = m.group(1);
            if (m.group(2).equals("cancel")) {
                route = new Route("POST", () -> Http.json(exchange, 200, engine.cancel(principal, id)));
            } else {
                route = new Route(method.equals("GET") ? "GET" : "POST", () -> subscribe(exchange, null, principal, id, FRAMES));
            }
        } else if ((m = TASK.matcher(path)).matches()) {
            String id = m.group(1);
            route = new Route("GET", () -> Http.json(exchange, 200,
                    engine.get(principal, id, integer(Http.query(exchange).get("historyLength"), "historyLength"))));
        } else if ((m = CONFIGS.matcher(path)).matches()) {
            String taskId = m.group(1);
            if (method.equals("POST")) {
                route = new Route("POST", () -> {
                    TaskPushNotificationConfig config = body(body, TaskPushNotificationConfig.class);
                    Http.json(exchange, 200, engine.putPush(principal, taskId, config));
                });
            } else {
                route = new Route("GET", () -> Http.json(exchange, 200,
                        new ListTaskPushNotificationConfigsResponse(engine.listPush(principal, taskId), "")));
            }
        } else if ((m = CONFIG.matcher(path)).matches()) {
            String taskId = m.group(1);
            String id = m.group(2);
            if (method.equals("DELETE")) {
                route = new Route("DELETE", () -> {
                    engine.deletePush(principal, taskId, id);
                    Http.json(exchange, 200, Map.of());
                });
            } else {
                route = new Route("GET", () -> Http.json(exchange, 200, engine.getPush(principal, taskId, id)));
            }
        } else if (path.equals("/extendedAgentCard")) {
            route = new Route("GET", () -> {
                throw new A2aException(A2aError.UNSUPPORTED_OPERATION,
                        "this agent has no extended agent card (capabilities.extendedAgentCard is not set)");
            });
        } else {
            Http.send(exchange, 404, Map.of(), Http.problem(A2aError.METHOD_NOT_FOUND, 404, "no such resource: "
                    + A2aServer.REST_PATH + path));
            return;
        }
        if (!route.method().equals(method) && !(route.method().equals("GET") && method.equals("HEAD"))) {
            Http.send(exchange, 405, Map.of("Allow", route.method()), Http.problem(A2aError.UNSUPPORTED_OPERATION, 405,
                    method + " " + A2aServer.REST_PATH + path + ": use " + route.method()));
            return;
        }
        if (versionError != null) {
            error(exchange, null, versionError);
            return;
        }
        try {
            route.action().run();
        } catch (A2aException e) {
            error(exchange, null, e);
        }
    }

    private interface Action {
        void run() throws IOException;
    }

    private record Route(String method, Action action) {
    }

    private static final Function<StreamResponse, byte[]> FRAMES = event -> {
        return Json.MAPPER.writeValueAsBytes(event);
    };

    private static <T> T body(byte[] body, Class<T> type) {
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(body);
        } catch (JacksonException e) {
            throw new A2aException(A2aError.PARSE_ERROR, "the body is not valid JSON");
        }
        if (tree == null || !tree.isObject()) {
            throw new A2aException(A2aError.INVALID_REQUEST, "the body must be a JSON object");
        }
        return JsonRpcBinding.params(tree, type);
    }

    private static ListTasksRequest listRequest(ServerExchange exchange) {
        Map<String, String> query = Http.query(exchange);
        TaskState status = null;
        String given = query.get("status");
        if (given != null && !given.isEmpty()) {
            status = TaskState.fromWire(given);
            if (status == null) {
                throw new A2aException(A2aError.INVALID_PARAMS, "status: not a task state: \"" + given + "\"");
            }
        }
        String artifacts = query.get("includeArtifacts");
        if (artifacts != null && !artifacts.equals("true") && !artifacts.equals("false")) {
            throw new A2aException(A2aError.INVALID_PARAMS, "includeArtifacts: true or false, got \"" + artifacts + "\"");
        }
        return new ListTasksRequest(null, query.get("contextId"), status, integer(query.get("pageSize"), "pageSize"),
                query.get("pageToken"), integer(query.get("historyLength"), "historyLength"),
                query.get("statusTimestampAfter"), artifacts == null ? null : Boolean.valueOf(artifacts));
    }

    private static Integer integer(String value, String name) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Integer.valueOf(value);
        } catch (NumberFormatException e) {
            throw new A2aException(A2aError.INVALID_PARAMS, name + ": not a whole number: \"" + value + "\"");
        }
    }

    @Override
    void error(ServerExchange exchange, Object requestId, A2aException error) throws IOException {
        int status = error.error().httpStatus();
        Http.send(exchange, status, Map.of(), Http.problem(error.error(), status, error.getMessage()));
    }
}
