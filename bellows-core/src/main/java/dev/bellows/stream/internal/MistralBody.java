package dev.bellows.stream.internal;

import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * Mistral's calls after {@code [TOOL_CALLS]} (mistral-common's tokenizers; vLLM's mistral
 * parser): before tokenizer v11 a JSON list of {@code {"name": ..., "arguments": ...}}
 * objects, each of which the scanner makes one call; from v11 on {@code NAME[ARGS]{...}},
 * optionally {@code NAME[CALL_ID]ID[ARGS]{...}}, one per {@code [TOOL_CALLS]}; the
 * {@code [ARGS]} token is often missing from the text ({@code NAME{...}}, as vLLM's tests show).
 */
final class MistralBody implements ToolBodyFormat {

    private static final String ARGS = "[ARGS]";
    private static final String CALL_ID = "[CALL_ID]";
    static final String HINT = "write [TOOL_CALLS]NAME[ARGS]{...JSON arguments...}";

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return new NameSniffer() {
            private NameSniffer form;

            @Override
            public String feed(CharSequence text, int from, int to) {
                int i = from;
                if (form == null) {
                    while (i < to && TagScanner.isWhitespace(text.charAt(i))) {
                        i++;
                    }
                    if (i == to) {
                        return null;
                    }
                    form = text.charAt(i) == '{' ? new ToolNameSniffer() : new PrefixNameSniffer(prefix -> {
                        char last = prefix.charAt(prefix.length() - 1);
                        if (last == '[' || last == '{' || TagScanner.isWhitespace(last)) {
                            return PrefixNameSniffer.checkedName(prefix.subSequence(0, prefix.length() - 1).toString());
                        }
                        return null;
                    });
                }
                return form.feed(text, i, to);
            }

            @Override
            public boolean isDone() {
                return form != null && form.isDone();
            }
        };
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return new ArgumentReader() {
            private ArgumentReader form;

            @Override
            public void feed(CharSequence text, int from, int to) {
                int i = from;
                if (form == null) {
                    while (i < to && TagScanner.isWhitespace(text.charAt(i))) {
                        i++;
                    }
                    if (i == to) {
                        return;
                    }
                    // {"name": ..., "arguments": ...} before v11; NAME[ARGS]{...} from v11
                    form = text.charAt(i) == '{' ? JsonArgumentScanner.forCall(sink)
                            : DialectArguments.firstObjectAfter(null, sink);
                }
                form.feed(text, i, to);
            }
        };
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        String body = ContentText.trim(content);
        if (body.startsWith("{")) {
            return ToolCallDecoder.decode(content);
        }
        return DialectBodies.guard(content, () -> {
            int brace = body.indexOf('{');
            int bracket = body.indexOf('[');
            int nameEnd = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
            if (nameEnd < 0) {
                throw new DecodeFailure("the tool name is not followed by its JSON arguments; " + HINT);
            }
            String name = ContentText.trim(body.substring(0, nameEnd));
            if (PrefixNameSniffer.checkedName(name) == PrefixNameSniffer.NONE) {
                throw new DecodeFailure("the call does not start with a tool name (" + ContentText.quote(name) + "); "
                        + HINT);
            }
            String between = body.substring(nameEnd, brace < 0 ? body.length() : brace);
            if (!between.isEmpty() && !between.equals(ARGS) && !(between.startsWith(CALL_ID) && between.endsWith(ARGS))) {
                throw new DecodeFailure("unexpected " + ContentText.quote(between) + " between the tool name and its"
                        + " arguments; " + HINT);
            }
            if (brace < 0) {
                throw new DecodeFailure("the call has no JSON arguments after " + ContentText.quote(body) + "; " + HINT);
            }
            return DialectBodies.call(name, DialectBodies.jsonArguments(body.substring(brace), HINT));
        });
    }

    @Override
    public String closeHint(String blockName) {
        return "the end of its JSON arguments";
    }
}
