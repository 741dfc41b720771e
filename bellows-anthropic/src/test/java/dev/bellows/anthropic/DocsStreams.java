package dev.bellows.anthropic;

import static dev.bellows.anthropic.FakeAnthropic.event;

/**
 * Event streams shaped like the examples of Anthropic's streaming documentation,
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming (now served at
 * https://platform.claude.com/docs/en/build-with-claude/streaming): the "basic streaming
 * request" answer ("Hello!"), and the "streaming with extended thinking" answer, whose
 * thinking block ends with a {@code signature_delta} before its text block starts.
 */
final class DocsStreams {

    private DocsStreams() {
    }

    static final String MESSAGE_START = event("message_start", """
            {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", \
            "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, \
            "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}""");

    static final String TEXT_BLOCK_START = event("content_block_start",
            "{\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"text\", \"text\": \"\"}}");

    static final String PING = event("ping", "{\"type\": \"ping\"}");

    static final String MESSAGE_STOP = event("message_stop", "{\"type\": \"message_stop\"}");

    static String textDelta(int index, String text) {
        return event("content_block_delta", "{\"type\": \"content_block_delta\", \"index\": " + index
                + ", \"delta\": {\"type\": \"text_delta\", \"text\": " + quote(text) + "}}");
    }

    static String blockStop(int index) {
        return event("content_block_stop", "{\"type\": \"content_block_stop\", \"index\": " + index + "}");
    }

    static String messageDelta(String stopReason, int outputTokens) {
        return event("message_delta", "{\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"" + stopReason
                + "\", \"stop_sequence\":null}, \"usage\": {\"output_tokens\": " + outputTokens + "}}");
    }

    /** The documentation's basic example: "Hello" and "!", a ping, 25 tokens in, 15 out. */
    static final String BASIC = MESSAGE_START
            + TEXT_BLOCK_START
            + PING
            + textDelta(0, "Hello")
            + textDelta(0, "!")
            + blockStop(0)
            + messageDelta("end_turn", 15)
            + MESSAGE_STOP;

    /** The documentation's extended-thinking example: a thinking block, then a text block. */
    static final String THINKING = MESSAGE_START
            + event("content_block_start", """
                {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}""")
            + event("content_block_delta", """
                {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", \
                "thinking": "Let me solve this step by step:\\n\\n1. First break down 27 * 453"}}""")
            + event("content_block_delta", """
                {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", \
                "thinking": "\\n2. 453 = 400 + 50 + 3"}}""")
            + event("content_block_delta", """
                {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", \
                "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."}}""")
            + blockStop(0)
            + event("content_block_start", """
                {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}""")
            + textDelta(1, "27 * 453 = 12,231")
            + blockStop(1)
            + event("message_delta", """
                {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, \
                "usage": {"output_tokens": 120}}""")
            + MESSAGE_STOP;

    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
