package dev.bellows.stream.internal;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * MiniMax-M2's call (its chat template; vLLM's minimax_m2 parser): inside
 * {@code <minimax:tool_call>}, each {@code <invoke name="NAME">} holds
 * {@code <parameter name="P">value</parameter>} elements and ends with {@code </invoke>}. The
 * scanner's delimiter is {@code <invoke}, so the body starts with {@code name="NAME">}. Values
 * lose their surrounding whitespace and are typed by the tool's schema.
 */
final class MinimaxBody implements ToolBodyFormat {

    private static final String NAME = "name=";
    private static final String PARAMETER = "<parameter";
    private static final String PARAMETER_END = "</parameter>";
    static final String HINT = "write <invoke name=\"TOOL\"><parameter name=\"ARG\">value</parameter></invoke>"
            + " inside <minimax:tool_call>...</minimax:tool_call>";

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return new PrefixNameSniffer(prefix -> {
            int length = prefix.length();
            if (!PrefixNameSniffer.compatible(prefix, NAME)) {
                return PrefixNameSniffer.NONE;
            }
            if (length <= NAME.length() + 1) {
                return null;
            }
            char quote = prefix.charAt(NAME.length());
            char last = prefix.charAt(length - 1);
            if (quote == '"' || quote == '\'') {
                return last == quote ? PrefixNameSniffer.checkedName(
                        prefix.subSequence(NAME.length() + 1, length - 1).toString()) : null;
            }
            return last == '>' || TagScanner.isWhitespace(last)
                    ? PrefixNameSniffer.checkedName(prefix.subSequence(NAME.length(), length - 1).toString()) : null;
        });
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return DialectArguments.minimax(schemas, sink);
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        return DialectBodies.guard(content, () -> {
            String body = ContentText.trim(content);
            int[] attr = attribute(body, 0);
            if (attr == null) {
                throw new DecodeFailure("the <invoke> tag has no name=\"TOOL\"; " + HINT);
            }
            String name = body.substring(attr[0], attr[1]);
            if (PrefixNameSniffer.checkedName(name) == PrefixNameSniffer.NONE) {
                throw new DecodeFailure("<invoke name=" + ContentText.quote(name) + "> does not name a tool; " + HINT);
            }
            ObjectNode arguments = StrictJson.emptyObject();
            int pos = attr[2];
            while (true) {
                int open = body.indexOf(PARAMETER, pos);
                if (open < 0) {
                    break;
                }
                int[] key = attribute(body, ContentText.skipWhitespace(body, open + PARAMETER.length(), body.length()));
                if (key == null) {
                    throw new DecodeFailure("a <parameter> has no name=\"ARG\"; " + HINT);
                }
                String parameter = body.substring(key[0], key[1]);
                int close = body.indexOf(PARAMETER_END, key[2]);
                if (close < 0) {
                    throw new DecodeFailure("<parameter name=\"" + parameter + "\"> is never closed with </parameter>; "
                            + HINT);
                }
                arguments.set(parameter, schemas.value(name, parameter, ContentText.trim(body.substring(key[2], close))));
                pos = close + PARAMETER_END.length();
            }
            return DialectBodies.call(name, arguments);
        });
    }

    /** {@code name="V">} at {@code from}: the value's start and end, and the index after '>'; or null. */
    private static int[] attribute(String text, int from) {
        if (!text.startsWith(NAME, from)) {
            return null;
        }
        int start = from + NAME.length();
        int end;
        if (start < text.length() && (text.charAt(start) == '"' || text.charAt(start) == '\'')) {
            end = text.indexOf(text.charAt(start), start + 1);
            if (end < 0) {
                return null;
            }
            start++;
        } else {
            end = start;
            while (end < text.length() && text.charAt(end) != '>' && !TagScanner.isWhitespace(text.charAt(end))) {
                end++;
            }
        }
        int gt = text.indexOf('>', end);
        return gt < 0 ? null : new int[] {start, end, gt + 1};
    }

    @Override
    public String closeHint(String blockName) {
        return "</invoke>";
    }
}
