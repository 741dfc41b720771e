package dev.bellows.stream;

import dev.bellows.stream.internal.DialectSpec;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How a model family writes its reasoning and its tool calls: the delimiters of thinking
 * blocks and tool blocks, and the format of a tool block's body. The stream processor has one
 * scanner design for all of them: {@code bellows} (the default) is the contract's XML-like
 * tags, scanned by the tag scanner; every other dialect is a set of literal delimiters for the
 * marker scanner plus a body format. Nothing else differs between dialects.
 *
 * <p>Names: {@code bellows}, {@code hermes}, {@code qwen3_coder}, {@code llama3_json},
 * {@code mistral}, {@code deepseek_v3}, {@code kimi_k2}, {@code glm45}, {@code minimax_m2},
 * {@code harmony}, {@code kimi_think}. docs/dialects.md gives each one's rules and sources.
 *
 * <pre>{@code
 * StreamOptions options = StreamOptions.builder().dialect(Dialect.named("qwen3_coder")).build();
 * }</pre>
 */
public final class Dialect {

    private final String name;

    private Dialect(String name) {
        this.name = name;
    }

    /** Every dialect by name, in the documented order; filled once here and never changed. */
    private static final Map<String, Dialect> ALL = registry();

    /** The default dialect: the stream contract's tags ({@code <thinking>}, {@code <tool>}, ...). */
    public static final Dialect BELLOWS = ALL.get("bellows");

    private static Map<String, Dialect> registry() {
        Map<String, Dialect> all = new LinkedHashMap<>();
        for (DialectSpec spec : DialectSpec.all()) {
            all.put(spec.name(), new Dialect(spec.name()));
        }
        return Collections.unmodifiableMap(all);
    }

    /**
     * The dialect of that name (ASCII case-insensitive).
     *
     * @throws IllegalArgumentException listing the known names
     */
    public static Dialect named(String name) {
        Dialect dialect = ALL.get(Objects.requireNonNull(name, "name").toLowerCase(Locale.ROOT));
        if (dialect == null) {
            throw new IllegalArgumentException("unknown dialect '" + name + "': use one of " + String.join(", ", names()));
        }
        return dialect;
    }

    /** Every dialect name, {@code bellows} first. */
    public static List<String> names() {
        return List.copyOf(ALL.keySet());
    }

    public String name() {
        return name;
    }

    /** Whether this dialect uses the contract's tags (and so the tag options) rather than literal delimiters. */
    public boolean usesTags() {
        return this == BELLOWS;
    }

    @Override
    public String toString() {
        return name;
    }
}
