package dev.bellows.a2a.client;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.a2a.Artifact;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.TaskStatus;
import dev.bellows.agent.ToolInterceptor;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A remote A2A agent offered to a model as a tool: one argument {@code task} (a string) sent as
 * the text of a new task, and the text of the task's artifacts, once it completed, as the result.
 * The task is streamed when the agent's card declares streaming (each event goes to the
 * {@link Listener} as it arrives), else sent and waited for.
 *
 * <ul>
 * <li>A task that fails, is rejected or cancelled is a {@link ToolException} the model reads,
 *     with the agent's status message.</li>
 * <li>A task that asks for input ends the call with {@link RemoteInputRequired}: with
 *     {@link #waitsForInput()} among the agent's tool interceptors, the call waits instead
 *     (the run stops {@code interrupted}, the call a {@link dev.bellows.agent.WaitingCall.Kind#EXTERNAL}
 *     one); {@link #pendingInput(String)} gives the question, {@link #answer} sends the person's
 *     answer into the remote task and returns what the run is resumed with
 *     ({@link dev.bellows.agent.Decision#respond}).</li>
 * <li>A cancelled call (the run cancelled: the thread interrupted, or the context says so)
 *     cancels the remote task before it returns.</li>
 * </ul>
 *
 * <p>Thread-safe: calls may run at the same time, each its own remote task.
 */
public final class A2aAgentTool implements Tool {

    /** The same for every remote agent, and frozen: built once. */
    private static final JsonNode SCHEMA = schema();

    /** Sees every event of the remote tasks as it arrives. Called on the calling thread; must not block. */
    @FunctionalInterface
    public interface Listener {
        /** One event of the remote task run by the agent named {@code agent}. */
        void onEvent(String agent, StreamResponse event);

        /** Sees nothing. */
        Listener NONE = (agent, event) -> {
        };
    }

    private final String name;
    private final String description;
    private final A2aClient client;
    private final Listener listener;
    private final Map<String, RemoteWait> pending = new ConcurrentHashMap<>();

    private A2aAgentTool(String name, String description, A2aClient client, Listener listener) {
        this.name = name;
        this.description = description;
        this.client = client;
        this.listener = listener;
    }

    /**
     * The agent {@code client} talks to, as the tool {@code name}; its description is the card's
     * (with its skills). The client stays the caller's to close.
     */
    public static A2aAgentTool of(String name, A2aClient client, Listener listener) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(client, "client");
        return new A2aAgentTool(name, describe(client), client, Objects.requireNonNull(listener, "listener"));
    }

    static String describe(A2aClient client) {
        String text = "The remote agent \"" + client.card().name() + "\"" + (client.card().description() == null
                || client.card().description().isBlank() ? "" : ": " + client.card().description().strip());
        if (client.card().skills() != null && !client.card().skills().isEmpty()) {
            text += " Skills: " + client.card().skills().stream()
                    .map(s -> s.name() + (s.description() == null || s.description().isBlank() ? "" : " (" + s.description().strip() + ")"))
                    .collect(Collectors.joining("; ")) + ".";
        }
        return text + " Give it the whole task in words; its answer comes back as the result.";
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public JsonNode inputSchema() {
        return SCHEMA;
    }

    private static JsonNode schema() {
        ObjectNode schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putObject("properties").putObject("task").put("type", "string")
                .put("description", "The task for the remote agent, in words.");
        schema.putArray("required").add("task");
        schema.put("additionalProperties", false);
        return FrozenJson.freeze(schema);
    }

    /** Remote tasks take a while and share nothing: calls may run side by side. */
    @Override
    public boolean parallelSafe() {
        return true;
    }

    /** The client the tool calls its agent with. */
    public A2aClient client() {
        return client;
    }

    @Override
    public ToolResult<String> call(ToolContext context, JsonNode arguments) throws ToolException {
        JsonNode task = arguments == null ? null : arguments.get("task");
        if (task == null || !task.isString() || task.asString().isBlank()) {
            throw new ToolException("give the remote agent a \"task\": a non-empty string");
        }
        return ToolResult.of(run(Message.of(Role.USER, List.of(Part.text(task.asString()))), context));
    }

    /**
     * Sends the person's answer into a remote task that waits for input and follows it on: the
     * text to resume the waiting call with ({@link dev.bellows.agent.Decision#respond}).
     *
     * @throws RemoteInputRequired the agent asks again
     * @throws ToolException       the task failed, was rejected or cancelled, or the agent could not be reached
     */
    public String answer(RemoteWait wait, String answer, ToolContext context) throws ToolException {
        Objects.requireNonNull(answer, "answer");
        Message message = Message.of(Role.USER, List.of(Part.text(answer))).inTask(wait.taskId(),
                wait.contextId().isEmpty() ? null : wait.contextId());
        pending.values().remove(wait);      // answered: the call it came from is resumed with what follows
        return run(message, context);
    }

    /** The question of the call {@code callId} that waits for input (deferred by {@link #waitsForInput()}). */
    public Optional<RemoteWait> pendingInput(String callId) {
        return Optional.ofNullable(pending.get(callId));
    }

    /**
     * The tool interceptor that makes a call this tool ends with {@link RemoteInputRequired} wait
     * (deferred) rather than fail; register it with the agent that offers the tool.
     */
    public ToolInterceptor waitsForInput() {
        return chain -> {
            ToolCallOutcome outcome = chain.proceed();
            if (chain.tool() == this && outcome instanceof ToolCallOutcome.Failed failed
                    && failed.cause() instanceof RemoteInputRequired input) {
                pending.put(chain.callId(), input.waiting());
                return chain.defer();
            }
            return outcome;
        };
    }

    private String run(Message message, ToolContext context) throws ToolException {
        Collected collected = new Collected();
        String taskId = message.taskId();
        try {
            if (client.streams()) {
                try (TaskEvents events = client.stream(message)) {
                    for (StreamResponse event : events) {
                        taskId = collected.see(event, taskId);
                        listener.onEvent(name, event);
                        if (context.isCancelled()) {
                            throw new A2aClientException(A2aClientException.Kind.CANCELLED, "the run was cancelled");
                        }
                    }
                }
                if (collected.state == null || !collected.state.terminal() && !collected.state.interrupted()) {
                    // The stream ended before the task did: ask where it stands.
                    if (taskId == null) {
                        throw new ToolException("the remote agent " + name + " closed its stream before it sent a task");
                    }
                    collected.seeTask(client.getTask(taskId));
                }
            } else {
                SendMessageResponse response = client.send(message);
                if (response.message() != null) {
                    listener.onEvent(name, StreamResponse.of(response.message()));
                    return text(response.message().parts());
                }
                listener.onEvent(name, StreamResponse.of(response.task()));
                taskId = response.task().id();
                collected.seeTask(response.task());
            }
        } catch (A2aClientException e) {
            if (e.kind() == A2aClientException.Kind.CANCELLED || Thread.currentThread().isInterrupted() || context.isCancelled()) {
                cancelRemote(taskId);
                throw new ToolException("cancelled: the remote task of " + name + " was cancelled too", e);
            }
            throw new ToolException("the remote agent " + name + " could not be used: " + e.getMessage(), e);
        } catch (dev.bellows.a2a.A2aException e) {
            throw new ToolException("the remote agent " + name + " refused the task: " + e.getMessage(), e);
        }
        return collected.result(name, taskId);
    }

    /** Cancels the remote task of a call the run gave up, with the thread's interrupt held back for the request. */
    private void cancelRemote(String taskId) {
        if (taskId == null) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            client.cancelTask(taskId);
        } catch (RuntimeException e) {
            // already ended, or unreachable: nothing more to do for it
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What a remote task produced so far: its artifacts' text (chunks appended), its last status. */
    private static final class Collected {
        final Map<String, StringBuilder> artifacts = new LinkedHashMap<>();
        TaskState state;
        Message statusMessage;
        String contextId;
        String directText;

        String see(StreamResponse event, String taskId) {
            if (event.task() != null) {
                seeTask(event.task());
                return event.task().id();
            }
            if (event.message() != null) {
                directText = text(event.message().parts());
                state = TaskState.COMPLETED;
                return taskId;
            }
            if (event.statusUpdate() != null) {
                seeStatus(event.statusUpdate().status());
                contextId = event.statusUpdate().contextId();
                return event.statusUpdate().taskId();
            }
            Artifact artifact = event.artifactUpdate().artifact();
            String key = artifact.artifactId() == null ? "" : artifact.artifactId();
            String text = text(artifact.parts());
            if (Boolean.TRUE.equals(event.artifactUpdate().append()) && artifacts.containsKey(key)) {
                artifacts.get(key).append(text);
            } else {
                artifacts.put(key, new StringBuilder(text));
            }
            contextId = event.artifactUpdate().contextId();
            return event.artifactUpdate().taskId();
        }

        void seeTask(Task task) {
            contextId = task.contextId();
            seeStatus(task.status());
            if (task.artifacts() != null && !task.artifacts().isEmpty()) {
                artifacts.clear();
                for (Artifact artifact : task.artifacts()) {
                    artifacts.put(artifact.artifactId() == null ? "" : artifact.artifactId(),
                            new StringBuilder(text(artifact.parts())));
                }
            }
        }

        void seeStatus(TaskStatus status) {
            if (status != null) {
                state = status.state();
                statusMessage = status.message();
            }
        }

        String result(String agent, String taskId) throws ToolException {
            String said = statusMessage == null ? "" : text(statusMessage.parts());
            if (state == TaskState.INPUT_REQUIRED || state == TaskState.AUTH_REQUIRED) {
                throw new RemoteInputRequired(new RemoteWait(agent, taskId, contextId, said));
            }
            if (state != TaskState.COMPLETED) {
                throw new ToolException("the remote agent " + agent + "'s task " + (state == null ? "did not finish"
                        : "ended " + state.wireName()) + (said.isEmpty() ? "" : ": " + said));
            }
            if (directText != null) {
                return directText;
            }
            String text = artifacts.values().stream().map(StringBuilder::toString).filter(s -> !s.isEmpty())
                    .collect(Collectors.joining("\n"));
            return text.isEmpty() ? said : text;
        }
    }

    /** The parts as text: text parts as they are, data parts as JSON, files as {@code [file NAME]}. */
    public static String text(List<Part> parts) {
        if (parts == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (Part part : parts) {
            if (part.text() != null) {
                out.append(part.text());
            } else if (part.data() != null) {
                try {
                    out.append(Http.JSON.writeValueAsString(part.data()));
                } catch (tools.jackson.core.JacksonException e) {
                    out.append(part.data());
                }
            } else if (part.url() != null || part.raw() != null) {
                out.append("[file ").append(part.filename() != null ? part.filename() : part.url() != null ? part.url() : "")
                        .append(']');
            }
        }
        return out.toString();
    }
}
