package dev.bellows.prompt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One prompt text, read from {@code dev/bellows/prompt/internal/NAME.md} on the class path, with
 * {@code {{placeholder}}}s filled in. Substitution is a single pass: a value that itself holds
 * {@code {{...}}} (a tool description, say) is inserted as written, never expanded.
 * A placeholder without a value is a bug in Bellows and fails loudly.
 */
public record PromptTemplate(String name, String text) {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]+)}}");

    public PromptTemplate {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(text, "text");
    }

    /** Reads {@code NAME.md}; the trailing line break(s) of the file are dropped. */
    public static PromptTemplate load(String name) {
        String resource = name + ".md";
        try (InputStream in = PromptTemplate.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("prompt text " + resource + " is missing from the class path");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("\r\n", "\n");
            return new PromptTemplate(name, text.stripTrailing());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read prompt text " + resource, e);
        }
    }

    /** The text with every placeholder replaced by its value; values not used are ignored. */
    public String render(Map<String, String> values) {
        Matcher matcher = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder(text.length() + 64);
        int last = 0;
        while (matcher.find()) {
            String value = values.get(matcher.group(1));
            if (value == null) {
                throw new IllegalStateException("prompt text " + name + ".md has {{" + matcher.group(1)
                        + "}} but no value was given for it");
            }
            out.append(text, last, matcher.start()).append(value);
            last = matcher.end();
        }
        return out.append(text, last, text.length()).toString();
    }

    /** The text as it is, for a template without placeholders. */
    public String render() {
        return render(Map.of());
    }
}
