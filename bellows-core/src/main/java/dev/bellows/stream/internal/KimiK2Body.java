package dev.bellows.stream.internal;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * Kimi K2's call body (its chat template; vLLM's kimi_k2 parser, SGLang's KimiK2Detector):
 * {@code functions.NAME:INDEX<|tool_call_argument_begin|>{json}}. The name is the id without
 * its {@code functions.} prefix and {@code :INDEX} suffix; an id that is not one (a bare counter
 * such as {@code 0}) names the only tool offered, or the only one whose parameters fit the call's.
 */
final class KimiK2Body implements ToolBodyFormat {

    private static final String ARGUMENTS = "<|tool_call_argument_begin|>";
    private static final String PREFIX = "functions.";
    static final String HINT = "write <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...JSON arguments...}"
            + "<|tool_call_end|>";

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return new PrefixNameSniffer(prefix -> {
            int length = prefix.length();
            char last = prefix.charAt(length - 1);
            if (last == ':') {
                String id = prefix.subSequence(0, length - 1).toString();
                return PrefixNameSniffer.checkedName(id.startsWith(PREFIX) ? id.substring(PREFIX.length()) : id);
            }
            return last == '{' || last == '<' || TagScanner.isWhitespace(last) ? PrefixNameSniffer.NONE : null;
        });
    }

    /** The tool name in an id {@code functions.NAME:INDEX}, or null if it is not one. */
    static String name(String id) {
        String name = ContentText.trim(id);
        int colon = name.lastIndexOf(':');
        if (colon < 0 || colon == name.length() - 1 || !name.substring(colon + 1).chars().allMatch(Character::isDigit)) {
            return null;
        }
        name = name.substring(0, colon);
        return name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name;
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return DialectArguments.afterMarker(ARGUMENTS, sink);
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        return DialectBodies.guard(content, () -> {
            int at = content.indexOf(ARGUMENTS);
            if (at < 0) {
                throw new DecodeFailure("the call has no <|tool_call_argument_begin|> before its arguments; " + HINT);
            }
            String id = ContentText.trim(content.substring(0, at));
            ObjectNode arguments = DialectBodies.jsonArguments(content.substring(at + ARGUMENTS.length()), HINT);
            String name = name(id);
            if (name == null) {
                // A bare counter ("0") or an id of its own: the tool is inferred from the tools offered,
                // as vLLM and SGLang do, when that leaves exactly one.
                name = schemas.toolFor(() -> arguments.propertyNames().iterator(), !id.isEmpty() && id.chars().allMatch(Character::isDigit));
            }
            if (name == null || PrefixNameSniffer.checkedName(name) == PrefixNameSniffer.NONE) {
                throw new DecodeFailure("the call id " + ContentText.quote(id) + " is not functions.NAME:INDEX; " + HINT);
            }
            return DialectBodies.call(name, arguments);
        });
    }

    @Override
    public String closeHint(String blockName) {
        return "<|tool_call_end|>";
    }
}
