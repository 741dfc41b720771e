package dev.bellows.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the stream processor recognises blocks: the model's {@link Dialect} (default
 * {@code bellows}, the contract's tags), the tag names for thinking and for tool calls of the
 * {@code bellows} dialect (matched ASCII case-insensitively), whether the stream starts inside
 * a thinking block ({@code thinking-open}, for DeepSeek-R1 style output that only writes the
 * closing tag), whether a tool call ends an unclosed thinking block ({@code tool-ends-thinking}),
 * the tools' parameter schemas that type XML-style parameters ({@link ToolSchemas}), and whether
 * tool blocks report each argument as soon as its value is complete ({@code argument-events}).
 *
 * <pre>{@code
 * StreamOptions options = StreamOptions.builder()
 *         .thinkingTags("thinking", "think", "reasoning")
 *         .thinkingOpen(true)
 *         .build();
 * }</pre>
 */
public final class StreamOptions {

    /** Thinking tag names used when none are configured. */
    public static final List<String> DEFAULT_THINKING_TAGS = List.of("thinking", "think");
    /** Tool tag names used when none are configured. */
    public static final List<String> DEFAULT_TOOL_TAGS = List.of("tool", "tool_call");

    private static final Pattern TAG_NAME = Pattern.compile("[A-Za-z_][-A-Za-z0-9_.:]*");
    /** Longest tag name: an open or close tag is at most 256 characters in all. */
    private static final int MAX_TAG_NAME = 200;
    /** Tag names are matched as a bit set, so there can be at most 64 in all. */
    private static final int MAX_NAMES_PER_KIND = 32;
    // Last: built with the constants above.
    private static final StreamOptions DEFAULTS = builder().build();

    private final List<String> thinkingTags;
    private final List<String> toolTags;
    private final boolean thinkingOpen;
    private final boolean toolEndsThinking;
    private final Dialect dialect;
    private final ToolSchemas toolSchemas;
    private final boolean bellowsTagsToo;
    private final boolean argumentEvents;
    /** The tag names in lower case, thinking names first: a tag scanner's, made once, not per answer (read only). */
    private final String[] lowerCaseTagNames;

    private StreamOptions(Builder builder) {
        this.thinkingTags = validate("thinking", builder.thinkingTags);
        this.toolTags = validate("tool", builder.toolTags);
        for (String thinking : thinkingTags) {
            for (String tool : toolTags) {
                if (thinking.equalsIgnoreCase(tool)) {
                    throw new IllegalArgumentException("tag name '" + thinking
                            + "' is both a thinking tag and a tool tag: give each set its own names");
                }
            }
        }
        this.thinkingOpen = builder.thinkingOpen;
        this.toolEndsThinking = builder.toolEndsThinking;
        this.dialect = builder.dialect;
        this.toolSchemas = builder.toolSchemas;
        this.bellowsTagsToo = builder.bellowsTagsToo;
        this.argumentEvents = builder.argumentEvents;
        this.lowerCaseTagNames = java.util.stream.Stream.concat(thinkingTags.stream(), toolTags.stream())
                .map(name -> name.toLowerCase(java.util.Locale.ROOT)).toArray(String[]::new);
    }

    /** The thinking then tool tag names in lower case; shared: never to be changed. */
    String[] lowerCaseTagNames() {
        return lowerCaseTagNames;
    }

    /** Default tags ({@code thinking}, {@code think}; {@code tool}, {@code tool_call}), not thinking-open. */
    public static StreamOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<String> thinkingTags() {
        return thinkingTags;
    }

    public List<String> toolTags() {
        return toolTags;
    }

    public boolean thinkingOpen() {
        return thinkingOpen;
    }

    /**
     * Whether a tool open tag inside a tag-opened thinking block ends that block and starts the
     * tool call ({@code tool-ends-thinking}, for Qwen3-style models that call a tool without
     * closing their reasoning).
     */
    public boolean toolEndsThinking() {
        return toolEndsThinking;
    }

    /**
     * The model's dialect: its delimiters of thinking and tool blocks and the format of a tool
     * call's body. {@link Dialect#BELLOWS} (the default) uses the tag names above; the other
     * dialects have their own fixed delimiters and ignore them.
     */
    public Dialect dialect() {
        return dialect;
    }

    /** The tools' parameter schemas, which type the text parameters of XML-style dialects. */
    public ToolSchemas toolSchemas() {
        return toolSchemas;
    }

    /**
     * Whether, with a dialect other than {@code bellows}, the contract's own {@code <tool>} and
     * {@code <thinking>} blocks are recognised too (decoded by the contract's rules). An agent
     * whose prompt teaches those tags sets it: a model may follow the prompt or its training.
     * Off by default, so a dialect reads exactly its model's format.
     */
    public boolean bellowsTagsToo() {
        return bellowsTagsToo;
    }

    /**
     * Whether tool blocks emit a {@code tool_call_argument} event for each member of their
     * arguments, in the chunk that completes its value ({@code argument-events}; docs/stream-format.md,
     * "Argument values as they complete"). The agent loop turns it on; off by default, and off it
     * costs nothing: the other events are the same either way.
     */
    public boolean argumentEvents() {
        return argumentEvents;
    }

    /** These options with {@code argument-events} set as given (this instance when it already is). */
    public StreamOptions withArgumentEvents(boolean on) {
        return on == argumentEvents ? this : toBuilder().argumentEvents(on).build();
    }

    /** A builder that starts from these options. */
    public Builder toBuilder() {
        return new Builder().thinkingTags(thinkingTags).toolTags(toolTags).thinkingOpen(thinkingOpen)
                .toolEndsThinking(toolEndsThinking)
                .dialect(dialect).toolSchemas(toolSchemas).bellowsTagsToo(bellowsTagsToo)
                .argumentEvents(argumentEvents);
    }

    @Override
    public String toString() {
        return "StreamOptions[thinkingTags=" + thinkingTags + ", toolTags=" + toolTags
                + ", thinkingOpen=" + thinkingOpen + ", toolEndsThinking=" + toolEndsThinking + ", dialect=" + dialect + ", toolSchemas=" + toolSchemas + ", bellowsTagsToo=" + bellowsTagsToo
                + ", argumentEvents=" + argumentEvents + "]";
    }

    /**
     * Checks one tag name on its own (whether it clashes with the other set is checked when
     * the options are built).
     *
     * @param what what the name is, for the message ({@code "--tool-tags"}, {@code "tool tag name"})
     * @throws IllegalArgumentException saying what a tag name may hold
     */
    public static void checkTagName(String what, String name) {
        if (name.length() > MAX_TAG_NAME || !TAG_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid " + what + " '" + name
                    + "': use ASCII letters, digits, '_', '-', '.', ':' (not first), at most "
                    + MAX_TAG_NAME + " characters");
        }
    }

    private static List<String> validate(String kind, List<String> names) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("at least one " + kind + " tag name is needed");
        }
        if (names.size() > MAX_NAMES_PER_KIND) {
            throw new IllegalArgumentException("at most " + MAX_NAMES_PER_KIND + " " + kind + " tag names");
        }
        List<String> seen = new ArrayList<>();
        for (String name : names) {
            Objects.requireNonNull(name, kind + " tag name");
            checkTagName(kind + " tag name", name);
            String lower = name.toLowerCase(Locale.ROOT);
            if (!seen.contains(lower)) {
                seen.add(lower);
            }
        }
        return List.copyOf(seen);
    }

    /** Builds {@link StreamOptions}; every setter replaces what was set before. */
    public static final class Builder {
        private List<String> thinkingTags = DEFAULT_THINKING_TAGS;
        private List<String> toolTags = DEFAULT_TOOL_TAGS;
        private boolean thinkingOpen;
        private boolean toolEndsThinking;
        private Dialect dialect = Dialect.BELLOWS;
        private ToolSchemas toolSchemas = ToolSchemas.none();
        private boolean bellowsTagsToo;
        private boolean argumentEvents;

        private Builder() {
        }

        public Builder thinkingTags(String... names) {
            return thinkingTags(List.of(names));
        }

        public Builder thinkingTags(List<String> names) {
            this.thinkingTags = List.copyOf(names);
            return this;
        }

        public Builder toolTags(String... names) {
            return toolTags(List.of(names));
        }

        public Builder toolTags(List<String> names) {
            this.toolTags = List.copyOf(names);
            return this;
        }

        public Builder thinkingOpen(boolean thinkingOpen) {
            this.thinkingOpen = thinkingOpen;
            return this;
        }

        public Builder toolEndsThinking(boolean toolEndsThinking) {
            this.toolEndsThinking = toolEndsThinking;
            return this;
        }

        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        public Builder toolSchemas(ToolSchemas toolSchemas) {
            this.toolSchemas = Objects.requireNonNull(toolSchemas, "toolSchemas");
            return this;
        }

        public Builder bellowsTagsToo(boolean bellowsTagsToo) {
            this.bellowsTagsToo = bellowsTagsToo;
            return this;
        }

        /** Whether tool blocks report each argument as soon as its value is complete (default off). */
        public Builder argumentEvents(boolean argumentEvents) {
            this.argumentEvents = argumentEvents;
            return this;
        }

        /** @throws IllegalArgumentException with what to fix, for a bad tag name */
        public StreamOptions build() {
            return new StreamOptions(this);
        }
    }
}
