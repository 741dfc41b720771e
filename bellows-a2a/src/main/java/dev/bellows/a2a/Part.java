package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** Content of a message or artifact: exactly one of {@code text}, {@code raw} (bytes, base64 in JSON), {@code url} (a file by reference) or {@code data} (any JSON value as maps, lists, strings, numbers, booleans), with optional media type, file name and metadata. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Part(String text, byte[] raw, String url, Object data, Map<String, Object> metadata, String filename,
        String mediaType) {
    /** A text part. */
    public static Part text(String text) {
        return new Part(text, null, null, null, null, null, null);
    }

    /** A structured data part (media type application/json). */
    public static Part data(Object data) {
        return new Part(null, null, null, data, null, null, "application/json");
    }

    /** A file given inline (the bytes are copied). */
    public static Part file(byte[] raw, String filename, String mediaType) {
        return new Part(null, raw.clone(), null, null, null, filename, mediaType);
    }

    /** A file given by URL. */
    public static Part fileUrl(String url, String filename, String mediaType) {
        return new Part(null, null, url, null, null, filename, mediaType);
    }

    /** How many of the four contents are set; a valid part has exactly one. */
    public int contentCount() {
        return (text != null ? 1 : 0) + (raw != null ? 1 : 0) + (url != null ? 1 : 0) + (data != null ? 1 : 0);
    }
}
