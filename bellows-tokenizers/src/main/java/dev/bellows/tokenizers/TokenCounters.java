package dev.bellows.tokenizers;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.memory.TokenCounter;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@link TokenCounter} for a model: exact counts from the model's own encoding where
 * Bellows has it (OpenAI's BPE encodings, through JTokkit), else core's documented estimate.
 *
 * <pre>{@code
 * ConversationMemory memory = ConversationMemory.builder()
 *         .maxTokens(100_000)
 *         .tokenCounter(TokenCounters.forModel("gpt-4o-mini"))
 *         .build();
 * }</pre>
 *
 * <h2>Which models are counted exactly</h2>
 * <table>
 *   <caption>Model names and their encodings</caption>
 *   <tr><th>Model name starts with</th><th>Encoding</th></tr>
 *   <tr><td>{@code gpt-4o}, {@code chatgpt-4o}, {@code gpt-4.1}, {@code gpt-4.5}, {@code gpt-5},
 *       {@code o1}, {@code o3}, {@code o4}</td><td>o200k_base</td></tr>
 *   <tr><td>{@code gpt-4} (the others: {@code gpt-4}, {@code gpt-4-turbo}, {@code gpt-4-32k}, ...),
 *       {@code gpt-3.5} (also Azure's {@code gpt-35}), {@code text-embedding-3},
 *       {@code text-embedding-ada-002}</td><td>cl100k_base</td></tr>
 * </table>
 * The name is matched without regard to case or surrounding blanks, after what precedes its
 * last {@code /} (a router's provider prefix: {@code openai/gpt-4o} on OpenRouter) and a
 * fine-tune's {@code ft:} prefix ({@code ft:gpt-4o-mini:org::id}). A family name is matched
 * whole: {@code o1} and {@code o1-mini} are o200k_base, {@code o10} is not.
 *
 * <h2>Every other model</h2>
 * Llama, Qwen, Mistral, Gemma, DeepSeek, Claude and the rest each have their own tokenizer,
 * which is not one of these encodings: counting their text with o200k_base would be exactly
 * as much a guess as an estimate, while looking precise. So they get
 * {@link EstimatingTokenCounter}, whose rules are documented, and their counts are estimates
 * (usually within about 20% for English prose): leave headroom below the model's context
 * window.
 *
 * <p>The encodings are loaded once, lazily, from one registry shared by every counter this
 * class returns (o200k_base takes a few megabytes and tens of milliseconds to load). The
 * counters are thread-safe and count special-token text such as {@code <|endoftext|>} as the
 * ordinary text it is in a message.
 */
public final class TokenCounters {

    /** Created once: JTokkit's registry is thread-safe, and loads each encoding when first asked. */
    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    /** End of a family name: the end of the model name, or a separator before a variant or date. */
    private static final String END = "(?:$|[-.:@_ ].*)";

    private static final Pattern O200K = Pattern.compile(
            "(?:gpt-4o|chatgpt-4o|gpt-4\\.1|gpt-4\\.5|gpt-5|o1|o3|o4)" + END);
    private static final Pattern CL100K = Pattern.compile(
            "(?:gpt-4|gpt-3\\.5|gpt-35|text-embedding-3|text-embedding-ada-002)" + END);

    private TokenCounters() {
    }

    /**
     * The exact counter for {@code model} when it uses o200k_base or cl100k_base (see the
     * table above), else an {@link EstimatingTokenCounter}.
     *
     * @param model the model name as sent to the provider, e.g. {@code gpt-4o-mini},
     *              {@code openai/gpt-4.1}, {@code llama3.2}
     */
    public static TokenCounter forModel(String model) {
        return exact(model).orElseGet(EstimatingTokenCounter::new);
    }

    /**
     * The exact counter for {@code model}, or empty when Bellows has no tokenizer for it (then
     * only an estimate is possible).
     */
    public static Optional<TokenCounter> exact(String model) {
        return encodingFor(model).map(type -> new EncodingCounter(REGISTRY.getEncoding(type)));
    }

    /** The encoding of {@code model}, by the table of the class comment. */
    static Optional<EncodingType> encodingFor(String model) {
        Objects.requireNonNull(model, "model");
        String name = model.strip().toLowerCase(Locale.ROOT);
        name = name.substring(name.lastIndexOf('/') + 1);
        if (name.startsWith("ft:")) {
            name = name.substring("ft:".length());
        }
        if (O200K.matcher(name).matches()) {
            return Optional.of(EncodingType.O200K_BASE);
        }
        if (CL100K.matcher(name).matches()) {
            return Optional.of(EncodingType.CL100K_BASE);
        }
        return Optional.empty();
    }

    /** Counts with one of JTokkit's encodings, which hold no per-call state. */
    private record EncodingCounter(Encoding encoding) implements TokenCounter {

        @Override
        public int count(String text) {
            Objects.requireNonNull(text, "text");
            return text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
        }

        @Override
        public String toString() {
            return encoding.getName();
        }
    }
}
