package dev.bellows.stream;

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
        return new HarmonyHeader(word(text, "<|channel|>"), recipient == null || recipient.isEmpty() ? null : recipient);
    }

    boolean isAnalysis() {
        return "analysis".equals(channel);
    }

    /** The tool block's attributes: {@code channel} (when written) and {@code recipient}. */
    Map<String, String> attributes() {
        Map<String, String> attributes = new LinkedHashMap<>();
        if (channel != null) {
            attributes.put("channel", channel);
        }
        attributes.put("recipient", recipient);
        return Collections.unmodifiableMap(attributes); // in the order written, as tag attributes are
    }

    /** The word after the last {@code prefix}: up to whitespace or '<'. */
    private static String word(String text, String prefix) {
        int at = text.lastIndexOf(prefix);
        if (at < 0) {
            return null;
        }
        int start = at + prefix.length();
        int end = start;
        while (end < text.length() && !TagScanner.isWhitespace(text.charAt(end)) && text.charAt(end) != '<') {
            end++;
        }
        return text.substring(start, end);
    }
}
