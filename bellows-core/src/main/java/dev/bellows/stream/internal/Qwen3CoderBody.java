package dev.bellows.stream.internal;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * Qwen3-Coder's tool-call body (its chat template; vLLM's and SGLang's qwen3_coder parsers):
 * <pre>
 * &lt;function=NAME&gt;
 * &lt;parameter=P&gt;
 * value
 * &lt;/parameter&gt;
 * &lt;/function&gt;
 * </pre>
 * A value loses one leading and one trailing line break (the template writes them) and is
 * typed by the tool's schema. A missing {@code </parameter>} or {@code </function>} is
 * tolerated, as upstream does. A JSON body (Hermes style, which these models also write) is
 * decoded as JSON.
 */
final class Qwen3CoderBody implements ToolBodyFormat {

    private static final String FUNCTION = "<function=";
    private static final String PARAMETER = "<parameter=";
    private static final String PARAMETER_END = "</parameter>";
    private static final String FUNCTION_END = "</function>";
    static final String HINT = "write <function=NAME>, then <parameter=ARG>value</parameter> for each argument,"
            + " then </function>, all inside <tool_call>...</tool_call>";

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return new PrefixNameSniffer(prefix -> {
            int length = prefix.length();
            if (!PrefixNameSniffer.compatible(prefix, FUNCTION)) {
                return PrefixNameSniffer.NONE;
            }
            if (length <= FUNCTION.length()) {
                return null;
            }
            char last = prefix.charAt(length - 1);
            if (last == '>') {
                return PrefixNameSniffer.checkedName(
                        ContentText.trim(prefix.subSequence(FUNCTION.length(), length - 1).toString()));
            }
            return last == '<' || last == '\n' ? PrefixNameSniffer.NONE : null;
        });
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return DialectArguments.qwen3Coder(schemas, sink);
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        String body = ContentText.trim(content);
        if (body.startsWith("{")) {
            return ToolCallDecoder.decode(content);
        }
        return DialectBodies.guard(content, () -> {
            if (!body.startsWith(FUNCTION)) {
                throw new DecodeFailure(body.isEmpty() ? "the tool call is empty; " + HINT
                        : "the tool call must start with <function=NAME>, not " + ContentText.quote(body) + "; " + HINT);
            }
            int nameEnd = body.indexOf('>', FUNCTION.length());
            if (nameEnd < 0) {
                throw new DecodeFailure("<function= is not closed with '>'; " + HINT);
            }
            String name = ContentText.trim(body.substring(FUNCTION.length(), nameEnd));
            if (PrefixNameSniffer.checkedName(name) == PrefixNameSniffer.NONE) {
                throw new DecodeFailure("<function=" + name + "> does not name a tool; " + HINT);
            }
            int end = body.lastIndexOf(FUNCTION_END);
            if (end < nameEnd) {
                end = body.length();
            }
            ObjectNode arguments = StrictJson.emptyObject();
            int pos = nameEnd + 1;
            while (true) {
                int open = body.indexOf(PARAMETER, pos);
                if (open < 0 || open >= end) {
                    break;
                }
                int keyEnd = body.indexOf('>', open + PARAMETER.length());
                if (keyEnd < 0 || keyEnd >= end) {
                    throw new DecodeFailure("<parameter= is not closed with '>'; " + HINT);
                }
                String key = ContentText.trim(body.substring(open + PARAMETER.length(), keyEnd));
                if (key.isEmpty()) {
                    throw new DecodeFailure("<parameter=> has no name; " + HINT);
                }
                int close = body.indexOf(PARAMETER_END, keyEnd + 1);
                int next = body.indexOf(PARAMETER, keyEnd + 1);
                int valueEnd;
                if (close >= 0 && close < end && (next < 0 || close < next)) {
                    valueEnd = close;
                    pos = close + PARAMETER_END.length();
                } else { // tolerated: the value runs to the next parameter or the end
                    valueEnd = next >= 0 && next < end ? next : end;
                    pos = valueEnd;
                }
                arguments.set(key, schemas.value(name, key, stripOneLineBreak(body.substring(keyEnd + 1, valueEnd))));
            }
            return DialectBodies.call(name, arguments);
        });
    }

    /** Drops one line break at each end, as the template writes the value on its own lines. */
    static String stripOneLineBreak(String value) {
        int start = value.startsWith("\r\n") ? 2 : value.startsWith("\n") ? 1 : 0;
        int end = value.length();
        if (end - start >= 2 && value.startsWith("\r\n", end - 2)) {
            end -= 2;
        } else if (end > start && value.charAt(end - 1) == '\n') {
            end--;
        }
        return value.substring(start, end);
    }

    @Override
    public String closeHint(String blockName) {
        return "</tool_call>";
    }
}
