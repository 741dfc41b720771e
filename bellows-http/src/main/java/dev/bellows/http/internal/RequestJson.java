package dev.bellows.http.internal;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;

/**
 * Internal to the Bellows providers, not for users (it may change in any release): JSON
 * written straight to UTF-8 request bytes, the same bytes as the providers' earlier writers
 * sent by encoding a {@code String} body.
 */
public final class RequestJson {

    // Bellows' one mapper. Jackson 3 writes characters outside the BMP as their four UTF-8 bytes, as the text bodies
    // this replaced sent them, not as two escaped surrogates (COMBINE_UNICODE_SURROGATES_IN_UTF8).
    private static final ObjectMapper MAPPER = Jackson.JSON;

    private RequestJson() {
    }

    /** The mapper request bodies are written with; shared, so never reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /**
     * The text as the body's UTF-8 carries it: unchanged, unless it holds a lone surrogate,
     * which becomes '?' as encoding a {@code String} to UTF-8 makes it (the body was once
     * written that way; a JSON writer on bytes would escape it instead, which strict servers
     * refuse). Only such rare text is copied. Null stays null.
     */
    public static String wire(String text) {
        if (text == null) {
            return null;
        }
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            }
        }
        return text;
    }
}
