package dev.bellows.tool;

import java.util.Arrays;
import java.util.Objects;

/**
 * A binary part of a tool's result, such as an image, passed through to the model.
 *
 * @param mediaType the IANA media type, such as {@code image/png}
 * @param data      the bytes (copied on the way in and out)
 */
public record Media(String mediaType, byte[] data) {

    public Media {
        Objects.requireNonNull(mediaType, "mediaType");
        Objects.requireNonNull(data, "data");
        if (mediaType.isBlank() || mediaType.indexOf('/') < 1) {
            throw new IllegalArgumentException("media type '" + mediaType + "' is not of the form type/subtype");
        }
        data = data.clone();
    }

    /** An image; {@code mediaType} must start with {@code image/}. */
    public static Media image(byte[] data, String mediaType) {
        if (!mediaType.startsWith("image/")) {
            throw new IllegalArgumentException("'" + mediaType + "' is not an image media type (image/png, image/jpeg, ...)");
        }
        return new Media(mediaType, data);
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    /** The bytes in Base64 (RFC 4648, no line breaks), as the model APIs take them, without copying them first. */
    public String base64() {
        return java.util.Base64.getEncoder().encodeToString(data);
    }

    /** The number of bytes, without copying them. */
    public int size() {
        return data.length;
    }

    public boolean isImage() {
        return mediaType.startsWith("image/");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Media that && mediaType.equals(that.mediaType) && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return 31 * mediaType.hashCode() + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "Media[" + mediaType + ", " + data.length + " bytes]";
    }
}
