package dev.bellows.stream.internal;

import tools.jackson.databind.ObjectReader;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.format.ActionFormat;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the {@code action} section of a ReAct answer into tool calls: one call, or a list of
 * calls, in JSON or YAML, optionally inside a Markdown fence. Each call follows the rules of
 * the {@code <tool>} blocks' JSON ({@link ToolCallDecoder}): {@code tool_name} / {@code name} /
 * {@code tool}, optional {@code server_name}, {@code arguments} / {@code args} /
 * {@code parameters} as an object (or a string holding a JSON object).
 *
 * <p>Two kinds of failure: when the section as a whole cannot be read (not valid JSON or YAML,
 * not a call nor a list of calls, empty) {@link #decode} throws an {@link ActionException}
 * whose message is written for the model; when the list reads but one entry is not a valid call,
 * that entry becomes a {@link ToolCallError} in its place and the others stand, so they still run.
 *
 * <p>Stateless and safe to call from any thread.
 */
public final class ActionDecoder {

    private static final String JSON_HINT = "write one JSON object like {\"tool_name\": \"...\", \"arguments\": {...}}"
            + " or a JSON array of such objects";
    private static final String YAML_HINT = "write a YAML mapping like \"tool_name: ...\" with an \"arguments:\" "
            + "mapping below it, or a YAML list of such mappings";

    private static final ObjectReader YAML = Jackson.YAML.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private ActionDecoder() {
    }

    /** The action section could not be read as calls at all; the message is for the model. */
    public static final class ActionException extends Exception {
        public ActionException(String message) {
            super(message);
        }
    }

    /**
     * @param action the section's content
     * @return the calls in the order written, never empty
     * @throws ActionException when the section as a whole is not one call or a list of calls
     */
    public static List<DecodedToolCall> decode(String action, ActionFormat format) throws ActionException {
        String content = action == null ? "" : action;
        int start = ContentText.skipWhitespace(content, 0, content.length());
        int end = ContentText.trimEnd(content, start, content.length());
        String hint = format == ActionFormat.JSON ? JSON_HINT : YAML_HINT;
        String language = format == ActionFormat.JSON ? "JSON" : "YAML";
        if (start == end) {
            throw new ActionException("The action section is empty; " + hint + ".");
        }
        int[] body = MarkdownFence.strip(content, start, end);
        if (body[0] == body[1]) {
            throw new ActionException("The action section holds only a Markdown fence line; " + hint + ".");
        }
        String text = content.substring(body[0], body[1]);
        JsonNode value = format == ActionFormat.JSON ? readJson(text, hint) : readYaml(text, hint);
        if (value instanceof ObjectNode object) {
            return List.of(call(object, text, language, hint));
        }
        if (value instanceof ArrayNode array) {
            if (array.isEmpty()) {
                throw new ActionException("The action section is an empty list: it calls no tool; " + hint + ".");
            }
            List<DecodedToolCall> calls = new ArrayList<>(array.size());
            for (JsonNode element : array) {
                if (element instanceof ObjectNode object) {
                    calls.add(call(object, element.toString(), language, hint));
                } else {
                    calls.add(new ToolCallError(element.toString(), "each entry of the action list must be a "
                            + (format == ActionFormat.JSON ? "JSON object" : "YAML mapping") + " describing one call, not "
                            + JsonToolCallDecoder.describe(element) + "; " + hint));
                }
            }
            return List.copyOf(calls);
        }
        throw new ActionException("The action section must be one " + language + " "
                + (format == ActionFormat.JSON ? "object" : "mapping") + " or a list of them, not "
                + (value == null || value.isMissingNode() ? "nothing" : JsonToolCallDecoder.describe(value))
                + "; " + hint + ".");
    }

    private static DecodedToolCall call(ObjectNode object, String raw, String language, String hint) {
        try {
            return JsonToolCallDecoder.fromObject(object, language, hint);
        } catch (DecodeFailure failure) {
            return new ToolCallError(raw, failure.reason());
        } catch (RuntimeException unexpected) {
            DecoderFallback.log("the action decoder", unexpected);
            return new ToolCallError(raw, DecoderFallback.TOOL_CALL + "; " + hint);
        }
    }

    private static JsonNode readJson(String text, String hint) throws ActionException {
        try {
            return StrictJson.read(text);
        } catch (SyntaxError e) {
            throw new ActionException("The action section is not valid JSON: at "
                    + ContentText.position(text, e.offset()) + ": " + e.problem() + "; " + hint + ".");
        }
    }

    private static JsonNode readYaml(String text, String hint) throws ActionException {
        try {
            return YAML.readTree(text);
        } catch (JacksonException e) {
            TokenStreamLocation location = e.getLocation();
            String where = location == null || location.getLineNr() < 1 ? "" : " at line " + location.getLineNr();
            String problem = e.getOriginalMessage() == null ? "it cannot be read" : firstLine(e.getOriginalMessage());
            throw new ActionException("The action section is not valid YAML" + where + ": " + problem + "; " + hint + ".");
        }
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
