package dev.bellows.stream.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One gpt-oss harmony message header, {@code <|start|>assistant to=functions.f<|channel|>commentary
 * <|constrain|>json} (up to {@code <|message|>}): its channel and its recipient, wherever in the
 * header they are written (the role part or the channel part).
 *
 * @param channel   the word after the last {@code <|channel|>}, or null
 * @param recipient the word after the last {@code to=}, or null when there is none (or it is empty)
 */
record HarmonyHeader(String channel, String recipient) {

    static HarmonyHeader parse(CharSequence header) {
        String text = header.toString();
        String recipient = word(text, "to=");
        return new HarmonyHeader(word(text, "<|channel|>"), isCall(recipient) ? recipient : null);
    }

    /**
     * Whether a recipient makes the message a tool call: any but none, the assistant and the user
     * ({@code <|channel|>commentary to=assistant} is the model talking to itself, as llama.cpp reads it).
     */
    static boolean isCall(String recipient) {
        return recipient != null && !recipient.isEmpty() && !recipient.equals("assistant") && !recipient.equals("user");
    }

    boolean isAnalysis() {
        return "analysis".equals(channel);
    }

    /**
     * The tool block's attributes: {@code channel} (when written before the recipient: the block
     * starts as soon as the recipient's name ends) and {@code recipient}.
     */
    Map<String, String> attributes() {
        return attributes(channel, recipient);
    }

    static Map<String, String> attributes(String channel, String recipient) {
        Map<String, String> attributes = new LinkedHashMap<>();
        if (channel != null && !channel.isEmpty()) {
            attributes.put("channel", channel);
        }
        attributes.put("recipient", recipient);
        return Collections.unmodifiableMap(attributes); // in the order written, as tag attributes are
    }

    /** The channel written so far in a header, or null. */
    static String channel(CharSequence header) {
        return word(header.toString(), "<|channel|>");
    }

    /**
     * The word after the last {@code prefix}: up to whitespace or '<', leading whitespace skipped
     * (some templates write {@code <|channel|> final}).
     */
    private static String word(String text, String prefix) {
        int at = text.lastIndexOf(prefix);
        if (at < 0) {
            return null;
        }
        int start = at + prefix.length();
        while (start < text.length() && TagScanner.isWhitespace(text.charAt(start))) {
            start++;
        }
        int end = start;
        while (end < text.length() && !TagScanner.isWhitespace(text.charAt(end)) && text.charAt(end) != '<') {
            end++;
        }
        return text.substring(start, end);
    }
}
