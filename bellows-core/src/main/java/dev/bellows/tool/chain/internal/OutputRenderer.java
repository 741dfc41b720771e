package dev.bellows.tool.chain.internal;

import dev.bellows.tool.Media;
import dev.bellows.tool.ToolResult;
import tools.jackson.databind.ObjectWriter;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;
import dev.bellows.format.OutputFormat;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Turns a tool's raw result into the text the model reads: strings as they are, anything else
 * (records, collections, JSON nodes) as JSON or YAML, and a line saying what media is attached,
 * since the model receives the media apart from the text.
 */
final class OutputRenderer {

    static final String NO_OUTPUT = "(no output)";

    // Built once: a mapper is costly to build and safe to share, and a tool chain (with its
    // renderer) is made for every iteration of the loop.
    private static final ObjectWriter JSON = Jackson.JSON.writer().without(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    // Quotes only where YAML needs them; "123" and "true" stay quoted strings.
    private static final ObjectWriter YAML = Jackson.YAML.writer().with(YAMLWriteFeature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS);

    private final ObjectWriter mapper;

    OutputRenderer(OutputFormat format) {
        this.mapper = switch (format) {
            case JSON -> JSON;
            case YAML -> YAML;
        };
    }

    String render(ToolResult<?> result) {
        String output = output(result.output());
        List<Media> media = result.media();
        if (media.isEmpty()) {
            return output == null ? NO_OUTPUT : output;
        }
        return output == null ? describe(media) : output + "\n" + describe(media);
    }

    /** The output as text, or null when there is none (null or an empty string). */
    private String output(Object output) {
        if (output == null) {
            return null;
        }
        if (output instanceof CharSequence text) {
            return text.isEmpty() ? null : text.toString();
        }
        try {
            return mapper.writeValueAsString(output).strip();
        } catch (JacksonException e) {
            // A type Jackson cannot write (java.time without its module, say): the tool has
            // already run, so the model gets what toString says rather than an error that
            // would make it repeat the call.
            return String.valueOf(output);
        }
    }

    /** For example {@code (1 image attached: image/png, 123 bytes)}. */
    static String describe(List<Media> media) {
        boolean images = media.stream().allMatch(Media::isImage);
        String noun = (images ? "image" : "file") + (media.size() == 1 ? "" : "s");
        return "(" + media.size() + " " + noun + " attached: "
                + media.stream().map(m -> m.mediaType() + ", " + m.size() + " bytes")
                        .collect(Collectors.joining("; "))
                + ")";
    }
}
