package dev.bellows.stream.internal;

import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * The stream contract's tool-call body (a JSON object, or XML elements, optionally fenced),
 * which Hermes-style models ({@code {"name": ..., "arguments": ...}}) and Llama 3
 * ({@code {"name": ..., "parameters": ...}}) also write.
 */
final class JsonOrXmlBody implements ToolBodyFormat {

    /** Bodies between a close tag or delimiter. */
    static final JsonOrXmlBody INSTANCE = new JsonOrXmlBody(false);
    /** Bare JSON calls, which end where their object ends (Llama 3). */
    static final JsonOrXmlBody BARE_JSON = new JsonOrXmlBody(true);

    private final boolean bare;

    private JsonOrXmlBody(boolean bare) {
        this.bare = bare;
    }

    @Override
    public NameSniffer newSniffer(Map<String, String> attributes) {
        return new ToolNameSniffer();
    }

    @Override
    public ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return new ToolArgumentSniffer(sink);
    }

    @Override
    public boolean announcesNameAtEnd() {
        return false; // the contract: no event if the name never became known while streaming
    }

    @Override
    public DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas) {
        return ToolCallDecoder.decode(content);
    }

    @Override
    public String closeHint(String blockName) {
        return bare ? "the end of its JSON object" : "</" + blockName + ">";
    }
}
