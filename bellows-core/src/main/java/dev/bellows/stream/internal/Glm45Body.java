package dev.bellows.stream.internal;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * GLM-4.5's tool-call body (its chat template; vLLM's glm45 and SGLang's glm4_moe parsers):
 * the name on the first line, then {@code <arg_key>K</arg_key><arg_value>V</arg_value>}
 * pairs. Values are typed by the tool's schema; without one, a value that is JSON is that JSON
 * value (numbers as numbers, as vLLM's and llama.cpp's GLM parsers read them), else a string.
 */
final class Glm45Body implements ToolBodyFormat {

    private static final String KEY = "<arg_key>";
    private static final String KEY_END = "</arg_key>";
    private static final String VALUE = "<arg_value>";
    private static final String VALUE_END = "</arg_value>";
    static final String HINT = "write the tool name, then <arg_key>ARG</arg_key><arg_value>value</arg_value> for each"
            + " argument, inside <tool_call>...</tool_call>";

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return new PrefixNameSniffer(prefix -> {
            int length = prefix.length();
            char last = prefix.charAt(length - 1);
            if (length == 1) {
                return last == '<' || last == '{' ? PrefixNameSniffer.NONE : null;
            }
            if (last == '<' || TagScanner.isWhitespace(last)) {
                return PrefixNameSniffer.checkedName(prefix.subSequence(0, length - 1).toString());
            }
            return null;
        });
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return DialectArguments.glm(schemas, sink);
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        return DialectBodies.guard(content, () -> {
            int firstKey = content.indexOf(KEY);
            String name = ContentText.trim(content.substring(0, firstKey < 0 ? content.length() : firstKey));
            if (name.isEmpty()) {
                throw new DecodeFailure("the tool call does not start with the tool's name; " + HINT);
            }
            if (PrefixNameSniffer.checkedName(name) == PrefixNameSniffer.NONE) {
                throw new DecodeFailure("the tool name " + ContentText.quote(name) + " holds spaces or markup; " + HINT);
            }
            ObjectNode arguments = StrictJson.emptyObject();
            int pos = firstKey < 0 ? content.length() : firstKey;
            while (pos < content.length()) {
                int rest = ContentText.skipWhitespace(content, pos, content.length());
                if (rest == content.length()) {
                    break;
                }
                if (!content.startsWith(KEY, rest)) {
                    throw new DecodeFailure("expected <arg_key> at " + ContentText.position(content, rest) + ", found "
                            + ContentText.quote(content.substring(rest)) + "; " + HINT);
                }
                int keyEnd = content.indexOf(KEY_END, rest);
                if (keyEnd < 0) {
                    throw new DecodeFailure("<arg_key> is never closed with </arg_key>; " + HINT);
                }
                String key = ContentText.trim(content.substring(rest + KEY.length(), keyEnd));
                int value = ContentText.skipWhitespace(content, keyEnd + KEY_END.length(), content.length());
                if (!content.startsWith(VALUE, value)) {
                    throw new DecodeFailure("<arg_key>" + key + "</arg_key> must be followed by <arg_value>; " + HINT);
                }
                int valueEnd = content.indexOf(VALUE_END, value);
                if (valueEnd < 0) {
                    throw new DecodeFailure("<arg_value> of '" + key + "' is never closed with </arg_value>; " + HINT);
                }
                arguments.set(key, schemas.glmValue(name, key, content.substring(value + VALUE.length(), valueEnd)));
                pos = valueEnd + VALUE_END.length();
            }
            return DialectBodies.call(name, arguments);
        });
    }

    @Override
    public String closeHint(String blockName) {
        return "</tool_call>";
    }
}
