package dev.bellows.a2a.server;

import java.util.List;
import java.util.Locale;

/**
 * The media types an agent takes in message parts (its card's {@code defaultInputModes}):
 * {@code type/subtype}, {@code type/*} or {@code *}/{@code *}; a mode without a slash
 * ({@code text}) stands for its whole type. None given: every type.
 */
final class MediaTypes {

    private final List<String> modes;

    MediaTypes(List<String> modes) {
        this.modes = modes == null ? List.of() : modes.stream().map(m -> m.strip().toLowerCase(Locale.ROOT)).toList();
    }

    boolean accepts(String mediaType) {
        if (modes.isEmpty()) {
            return true;
        }
        String type = mediaType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        String major = type.contains("/") ? type.substring(0, type.indexOf('/')) : type;
        for (String mode : modes) {
            if (mode.equals("*/*") || mode.equals("*") || mode.equals(type) || mode.equals(major)
                    || mode.equals(major + "/*")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return String.join(", ", modes);
    }
}
