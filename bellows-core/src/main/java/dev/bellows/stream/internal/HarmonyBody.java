package dev.bellows.stream.internal;

import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.Map;

/**
 * gpt-oss harmony's tool call (OpenAI's harmony format; vLLM's openai parser): a message whose
 * header names a recipient, {@code <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>},
 * with the JSON arguments as its body, ended by {@code <|call|>}. The scanner puts the header's
 * {@code channel} and {@code recipient} in the block's attributes; the name is the recipient
 * without {@code functions.}, known as soon as the header ends.
 */
final class HarmonyBody implements ToolBodyFormat {

    private static final String PREFIX = "functions.";
    static final String HINT = "write <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json"
            + "<|message|>{...JSON arguments...}<|call|>";

    private static final NameSniffer KNOWN = new NameSniffer() {
        @Override
        public String feed(CharSequence text, int from, int to) {
            return null;
        }

        @Override
        public boolean isDone() {
            return true;
        }
    };

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return KNOWN;
    }

    @Override
    public String nameFromAttributes(Map<String, String> attributes) {
        String recipient = attributes.get("recipient");
        if (recipient == null) {
            return null;
        }
        String name = recipient.startsWith(PREFIX) ? recipient.substring(PREFIX.length()) : recipient;
        return name.isEmpty() ? null : name;
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return DialectArguments.whole(sink);
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        String name = nameFromAttributes(attributes);
        if (name == null) {
            return new ToolCallError(content, "the message header names no recipient; " + HINT);
        }
        return DialectBodies.guard(content, () -> DialectBodies.call(name, DialectBodies.jsonArguments(content, HINT)));
    }

    @Override
    public String closeHint(String blockName) {
        return "<|call|>";
    }
}
