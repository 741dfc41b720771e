package dev.bellows.mcp.server;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.secret.Secrets;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One {@code tools/call} of an offered agent, on a thread of its own: the agent runs on the
 * task in a fresh {@link Session}, each step goes to the client as a progress notification
 * when it sent a progress token, and a call of the agent that waits for a person's approval is
 * asked of the client through elicitation when it declared the capability (the run then goes
 * on with {@link DefaultAgent#resume}), else the call ends as a tool error naming it. A
 * {@link Cancellation} (the client's {@code notifications/cancelled}) cancels the run: its model
 * request, its tools, or the question being asked.
 */
final class AgentCall {

    private final String name;
    private final Agent agent;
    private final McpAsyncServerExchange exchange;
    private final Cancellation cancellation;
    private final Object progressToken;
    private int progress;

    AgentCall(String name, Agent agent, McpAsyncServerExchange exchange, Cancellation cancellation,
              Object progressToken) {
        this.name = name;
        this.agent = agent;
        this.exchange = exchange;
        this.cancellation = cancellation;
        this.progressToken = progressToken;
    }

    /** The schema of every offered agent's input: {@code {"task": string}}. */
    static Map<String, Object> inputSchema() {
        Map<String, Object> task = new LinkedHashMap<>();
        task.put("type", "string");
        task.put("description", "What the agent should do, in words");
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of("task", task));
        schema.put("required", List.of("task"));
        return schema;
    }

    McpSchema.CallToolResult run(Map<String, Object> arguments) {
        Object task = arguments == null ? null : arguments.get("task");
        if (!(task instanceof String text) || text.isBlank()) {
            return failed("\"task\" is required: a string saying what " + name + " should do");
        }
        Session session = new Session();
        AgentResult result = follow(agent.run(text, session));
        while (result.reason() == LoopEndReason.INTERRUPTED && !cancellation.isCancelled()) {
            if (!(agent instanceof DefaultAgent resumable)) {
                return failed(name + " stopped at a call that waits (" + describe(result.waiting())
                        + "), and this agent cannot be carried on here");
            }
            if (!askable()) {
                return failed(name + " needs a person's approval for " + describe(result.waiting())
                        + ", which this MCP client cannot give: it did not declare the elicitation capability."
                        + " Nothing was run; use a client that supports elicitation, or the server's AG-UI endpoint");
            }
            List<Decision> decisions = new ArrayList<>();
            for (WaitingCall waiting : result.waiting()) {
                Decision decision = decide(waiting);
                if (decision == null) {
                    break;      // cancelled while asking
                }
                decisions.add(decision);
            }
            if (cancellation.isCancelled()) {
                break;
            }
            result = follow(resumable.resume(session, decisions));
        }
        if (cancellation.isCancelled() || result.reason() == LoopEndReason.CANCELLED) {
            return failed(name + " was cancelled");
        }
        if (result.reason().successful()) {
            return McpSchema.CallToolResult.builder().addTextContent(Secrets.redact(result.result())).isError(false)
                    .build();
        }
        return failed(name + " ended " + result.reason().wireName()
                + (result.result().isEmpty() ? "" : ": " + Secrets.redact(result.result())));
    }

    /** Follows a run to its end, its steps sent as progress, cancelled with the call. */
    private AgentResult follow(AgentRun run) {
        cancellation.onCancel(run::cancel);
        try {
            for (AgentEvent event : run) {
                if (progressToken != null) {
                    String message = ProgressText.of(event);
                    if (message != null) {
                        progress++;
                        exchange.progressNotification(new McpSchema.ProgressNotification(progressToken,
                                (double) progress, null, message, null)).block();
                    }
                }
            }
        } catch (CancellationException e) {
            run.cancel();   // this thread was interrupted: the server is closing
        }
        return run.await();
    }

    private boolean askable() {
        McpSchema.ClientCapabilities capabilities = exchange.getClientCapabilities();
        return capabilities != null && capabilities.elicitation() != null;
    }

    /** Asks the client whether the waiting call may run; null when the call was cancelled meanwhile. */
    private Decision decide(WaitingCall waiting) {
        if (waiting.kind() != WaitingCall.Kind.APPROVAL) {
            return Decision.deny(waiting.id(), "its result was to come from outside the run, which an MCP call"
                    + " cannot give");
        }
        Map<String, Object> approve = new LinkedHashMap<>();
        approve.put("type", "boolean");
        approve.put("title", "Approve");
        approve.put("description", "Run the call");
        Map<String, Object> reason = new LinkedHashMap<>();
        reason.put("type", "string");
        reason.put("title", "Reason");
        reason.put("description", "Why not (read by the agent when you deny)");
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of("approve", approve, "reason", reason));
        schema.put("required", List.of("approve"));
        McpSchema.ElicitRequest request = McpSchema.ElicitRequest.builder()
                .message(Secrets.redact(name + " wants to run " + label(waiting) + " with " + waiting.arguments()
                        + ". Approve?"))
                .requestedSchema(schema)
                .build();
        CompletableFuture<McpSchema.ElicitResult> answer = exchange.createElicitation(request).toFuture();
        cancellation.onCancel(() -> answer.cancel(true));
        McpSchema.ElicitResult result;
        try {
            result = answer.get();
        } catch (CancellationException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancellation.cancel();
            return null;
        } catch (ExecutionException e) {
            return Decision.deny(waiting.id(), "the person could not be asked: " + e.getCause().getMessage());
        }
        if (result.action() == McpSchema.ElicitResult.Action.ACCEPT && result.content() != null
                && Boolean.TRUE.equals(result.content().get("approve"))) {
            return Decision.approve(waiting.id());
        }
        Object why = result.content() == null ? null : result.content().get("reason");
        String because = why instanceof String text && !text.isBlank() ? text
                : result.action() == McpSchema.ElicitResult.Action.ACCEPT ? "the person denied it"
                : "the person " + (result.action() == McpSchema.ElicitResult.Action.DECLINE ? "declined" : "cancelled")
                        + " the question";
        return Decision.deny(waiting.id(), because);
    }

    private static String label(WaitingCall waiting) {
        return waiting.serverName().isEmpty() || waiting.serverName().equals(dev.bellows.tool.ToolCall.LOCAL_SERVER)
                ? waiting.toolName() : waiting.serverName() + "/" + waiting.toolName();
    }

    private static String describe(List<WaitingCall> waiting) {
        return String.join(", ", waiting.stream().map(AgentCall::label).toList());
    }

    private static McpSchema.CallToolResult failed(String message) {
        return McpSchema.CallToolResult.builder().addTextContent(message).isError(true).build();
    }
}
