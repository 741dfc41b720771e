package dev.bellows.event;

import dev.bellows.tool.LoopEndReason;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Events back from their wire form, beside {@link EventJson}, which writes it: the same
 * records the run emitted ({@code complete} aside: it is never sent on).
 */
final class EventJsonReader {

    private EventJsonReader() {
    }

    /**
     * The event, or empty for a type this version does not know (a newer writer's). One with a
     * {@code parent_call_id} is a sub-agent's: a {@link LoopEvent.SubAgentEvent} of one level,
     * the agent and the call the wire names (a deeper one's levels above it are not on the wire).
     */
    static Optional<AgentEvent> read(JsonNode node) {
        int chunk = node.path("chunk").asInt(0);
        AgentEvent event = switch (node.path("type").asString("")) {
            case "thinking_start" -> new StreamEvent.ThinkingStart(chunk, text(node, "name"), attributes(node));
            case "thinking_content" -> new StreamEvent.ThinkingContent(chunk, text(node, "content"));
            case "thinking_end" -> new StreamEvent.ThinkingEnd(chunk, text(node, "content"));
            case "message_start" -> new StreamEvent.MessageStart(chunk);
            case "message_content" -> new StreamEvent.MessageContent(chunk, text(node, "content"));
            case "message_end" -> new StreamEvent.MessageEnd(chunk, text(node, "content"));
            case "tool_call_start" -> new StreamEvent.ToolCallStart(chunk, text(node, "name"), attributes(node));
            case "tool_call_name" -> new StreamEvent.ToolCallName(chunk, text(node, "tool_name"));
            case "tool_call_argument" -> new StreamEvent.ToolCallArgument(chunk, text(node, "name"),
                    node.has("value") ? node.get("value") : JsonNodeFactory.instance.nullNode());
            case "tool_call_content" -> new StreamEvent.ToolCallContent(chunk, text(node, "content"));
            case "tool_call_end" -> new StreamEvent.ToolCallEnd(chunk, text(node, "content"), call(node),
                    optional(node, "call_id"));
            case "section" -> new StreamEvent.Section(chunk, text(node, "name"), text(node, "content"));
            case "loop_start" -> new LoopEvent.LoopStart(text(node, "task"));
            case "iteration_start" -> new LoopEvent.IterationStart(node.path("iteration").asInt(0));
            case "tool_result" -> new LoopEvent.ToolResultEvent(text(node, "server_name"), text(node, "tool_name"),
                    object(node.get("arguments")), text(node, "result"), optional(node, "call_id"));
            case "tool_result_error" -> new LoopEvent.ToolResultError(optional(node, "server_name"),
                    optional(node, "tool_name"), text(node, "error"), optional(node, "call_id"));
            case "no_tool_call" -> new LoopEvent.NoToolCall(node.path("iteration").asInt(0));
            case "plan_update" -> new LoopEvent.PlanUpdate(steps(node.path("steps")));
            case "retry" -> new LoopEvent.Retry(node.path("attempt").asInt(0), text(node, "reason"),
                    node.path("delay_ms").asLong(0));
            case "approval_required" -> new LoopEvent.ApprovalRequired(text(node, "id"), text(node, "server_name"),
                    text(node, "tool_name"), object(node.get("arguments")));
            case "approval" -> new LoopEvent.Approval(text(node, "id"), "approved".equals(text(node, "decision")),
                    text(node, "reason"));
            case "handoff" -> new LoopEvent.Handoff(text(node, "from"), text(node, "to"));
            case "loop_end" -> new LoopEvent.LoopEnd(LoopEndReason.fromWireName(text(node, "reason"))
                    .orElse(LoopEndReason.ERROR), text(node, "result"));
            default -> null;
        };
        String parentCallId = optional(node, "parent_call_id");
        if (event != null && parentCallId != null) {
            // a sub-agent's event: the wire names its agent and the call that runs it (the deepest level's)
            event = new LoopEvent.SubAgentEvent(text(node, "agent"), parentCallId, event);
        }
        return Optional.ofNullable(event);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? "" : value.asString("");
    }

    private static String optional(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asString("");
    }

    private static Map<String, String> attributes(JsonNode node) {
        Map<String, String> attributes = new LinkedHashMap<>();
        node.path("attributes").properties().forEach(e -> attributes.put(e.getKey(), e.getValue().asString("")));
        return attributes;
    }

    private static ObjectNode object(JsonNode node) {
        return node instanceof ObjectNode object ? object : JsonNodeFactory.instance.objectNode();
    }

    private static DecodedToolCall call(JsonNode node) {
        if (node.has("error")) {
            return new ToolCallError(text(node, "content"), text(node, "error"));
        }
        return new ToolCall(text(node, "server_name"), text(node, "tool_name"), object(node.get("arguments")));
    }

    private static List<PlanStep> steps(JsonNode steps) {
        List<PlanStep> list = new ArrayList<>();
        for (JsonNode step : steps) {
            list.add(new PlanStep(text(step, "description"),
                    PlanStatus.valueOf(text(step, "status").toUpperCase(Locale.ROOT))));
        }
        return list;
    }
}
