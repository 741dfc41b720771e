package dev.bellows.stream.internal;

import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * DeepSeek's call body, between {@code <｜tool▁call▁begin｜>} and {@code <｜tool▁call▁end｜>}
 * (the V3 / R1 chat templates; vLLM's deepseek_v3 and deepseek_v31 parsers):
 * V3 writes {@code function<｜tool▁sep｜>NAME\n```json\n{...}\n```}, V3.1 writes
 * {@code NAME<｜tool▁sep｜>{...}}. Both are accepted.
 */
final class DeepSeekBody implements ToolBodyFormat {

    static final String SEP = "<｜tool▁sep｜>";
    private static final String TYPE = "function";
    static final String HINT = "write <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{...}\\n```<｜tool▁call▁end｜>";

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return new PrefixNameSniffer(prefix -> {
            int length = prefix.length();
            char last = prefix.charAt(length - 1);
            String text = prefix.toString();
            int sep = text.indexOf(SEP);
            if (sep < 0) {
                if (last == '<' && !text.substring(0, length - 1).equals(TYPE)) { // V3.1: NAME<｜tool▁sep｜>
                    return PrefixNameSniffer.checkedName(ContentText.trim(text.substring(0, length - 1)));
                }
                return last == '{' || last == '\n' ? PrefixNameSniffer.NONE : null;
            }
            int after = sep + SEP.length();
            if (after == length) {
                return null;
            }
            if (length == after + 1 && last == '{') { // V3.1 with a tool named "function"
                return TYPE;
            }
            if (last == '\n' || last == '`' || last == '{') { // V3: the name's line ends
                return PrefixNameSniffer.checkedName(ContentText.trim(text.substring(after, length - 1)));
            }
            return null;
        });
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return DialectArguments.firstObjectAfter(SEP, sink);
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        return DialectBodies.guard(content, () -> {
            int sep = content.indexOf(SEP);
            if (sep < 0) {
                throw new DecodeFailure("the call has no <｜tool▁sep｜> between its type and its name; " + HINT);
            }
            String before = ContentText.trim(content.substring(0, sep));
            int rest = sep + SEP.length();
            int first = ContentText.skipWhitespace(content, rest, content.length());
            String name;
            String arguments;
            // Indices rather than substrings: the arguments can be megabytes, copied once.
            if (before.equals(TYPE) && (first == content.length() || content.charAt(first) != '{')) {
                int line = content.indexOf('\n', rest);
                int nameEnd = line < 0 ? content.indexOf("```", rest) : line;
                if (nameEnd < 0) {
                    throw new DecodeFailure("the tool name must be followed by a line break and the JSON arguments in"
                            + " a ```json fence; " + HINT);
                }
                name = ContentText.trim(content.substring(rest, nameEnd));
                arguments = unfence(content, nameEnd);
            } else {
                name = before;
                arguments = unfence(content, rest);
            }
            if (PrefixNameSniffer.checkedName(name) == PrefixNameSniffer.NONE) {
                throw new DecodeFailure("the call does not name a tool (" + ContentText.quote(name) + "); " + HINT);
            }
            return DialectBodies.call(name, DialectBodies.jsonArguments(arguments, HINT));
        });
    }

    /** {@code content} from {@code from} without a surrounding Markdown fence (the contract's rule 1). */
    private static String unfence(String content, int from) {
        int start = ContentText.skipWhitespace(content, from, content.length());
        int end = ContentText.trimEnd(content, start, content.length());
        int[] body = MarkdownFence.strip(content, start, end);
        return content.substring(body[0], body[1]);
    }

    @Override
    public String closeHint(String blockName) {
        return "<｜tool▁call▁end｜>";
    }
}
