package dev.bellows.stream;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a model family needs from the stream processor: its {@link Dialect}, whether its chat
 * template already opened the thinking block ({@code thinking-open}), and whether it starts
 * tool calls inside its reasoning ({@code tool-ends-thinking}). {@link #forModel} picks the
 * profile by model name; a caller's own options can always override it.
 *
 * <pre>{@code
 * StreamOptions options = ModelProfile.forModel("Qwen/Qwen3-235B-A22B-Thinking-2507")
 *         .applyTo(StreamOptions.builder())
 *         .build();
 * }</pre>
 *
 * @param family           a short name of the model family, for messages
 * @param dialect          the family's dialect
 * @param thinkingOpen     the template opens the thinking block, so the answer starts inside it
 * @param toolEndsThinking the model may start a tool call before closing its reasoning
 */
public record ModelProfile(String family, Dialect dialect, boolean thinkingOpen, boolean toolEndsThinking) {

    public ModelProfile {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(dialect, "dialect");
    }

    /** The profile of models Bellows does not know: the contract's own tags. */
    public static final ModelProfile DEFAULT = new ModelProfile("other", Dialect.BELLOWS, false, false);

    /** One rule: a model whose lower-cased name contains every one of {@code parts}. */
    private record Rule(List<String> parts, ModelProfile profile) {
        boolean matches(String name) {
            return parts.stream().allMatch(name::contains);
        }
    }

    // First match wins, so the more specific names come first. Sources: the models' chat
    // templates (whether they end the prompt with an open "<think>") and model cards.
    private static final List<Rule> RULES = List.of(
            rule("gpt-oss", "harmony", false, false, "gpt-oss"),
            rule("qwen3-coder", "qwen3_coder", false, false, "qwen3-coder"),
            rule("qwen3-coder", "qwen3_coder", false, false, "qwen3_coder"),
            // Qwen3 *-Thinking-2507 and QwQ templates end the prompt with "<think>\n".
            rule("qwen3-thinking", "hermes", true, true, "qwen3", "thinking"),
            rule("qwq", "hermes", true, true, "qwq"),
            rule("qwen3", "hermes", false, true, "qwen3"),
            rule("qwen2", "hermes", false, false, "qwen2"),
            rule("hermes", "hermes", false, false, "hermes"),
            // DeepSeek-R1's template ends the prompt with "<think>\n".
            rule("deepseek-r1", "deepseek_v3", true, false, "deepseek-r1"),
            rule("deepseek-v3", "deepseek_v3", false, false, "deepseek-v3"),
            rule("deepseek-v3", "deepseek_v3", false, false, "deepseek"),
            // Kimi-VL Thinking writes ◁think▷; kimi_k2 reads both <think> and ◁think▷.
            rule("kimi-vl", "kimi_think", false, false, "kimi-vl"),
            rule("kimi-k2", "kimi_k2", false, false, "kimi-k2"),
            rule("kimi-k2", "kimi_k2", false, false, "kimi"),
            rule("glm-4.5", "glm45", false, false, "glm-4."),
            rule("glm-4.5", "glm45", false, false, "glm4"),
            rule("minimax-m2", "minimax_m2", false, false, "minimax-m2"),
            rule("mistral", "mistral", false, false, "magistral"),
            rule("mistral", "mistral", false, false, "mistral"),
            rule("mistral", "mistral", false, false, "mixtral"),
            rule("mistral", "mistral", false, false, "devstral"),
            rule("mistral", "mistral", false, false, "ministral"),
            rule("llama-3", "llama3_json", false, false, "llama-3"),
            rule("llama-3", "llama3_json", false, false, "llama3"));

    private static Rule rule(String family, String dialect, boolean thinkingOpen, boolean toolEndsThinking,
            String... parts) {
        return new Rule(List.of(parts), new ModelProfile(family, Dialect.named(dialect), thinkingOpen, toolEndsThinking));
    }

    /** The profile for a model name (case-insensitive, organisation prefix allowed); {@link #DEFAULT} if unknown. */
    public static ModelProfile forModel(String modelName) {
        String name = Objects.requireNonNull(modelName, "modelName").toLowerCase(Locale.ROOT);
        for (Rule rule : RULES) {
            if (rule.matches(name)) {
                return rule.profile();
            }
        }
        return DEFAULT;
    }

    /** Sets this profile's dialect and switches on its options in {@code builder}; returns it. */
    public StreamOptions.Builder applyTo(StreamOptions.Builder builder) {
        builder.dialect(dialect);
        if (thinkingOpen) {
            builder.thinkingOpen(true);
        }
        if (toolEndsThinking) {
            builder.toolEndsThinking(true);
        }
        return builder;
    }
}
