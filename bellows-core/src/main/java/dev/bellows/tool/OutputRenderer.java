package dev.bellows.tool;

import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
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
    private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build())
            .addModule(new Jdk8Module())
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();
    private static final ObjectMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build())
            .addModule(new Jdk8Module())
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            // Quotes only where YAML needs them; "123" and "true" stay quoted strings.
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .build();

    private final ObjectMapper mapper;

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
        } catch (JsonProcessingException e) {
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
