package dev.bellows.tokenizers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.memory.TokenCounter;
import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TokenCountersTest {

    static final TokenCounter O200K = TokenCounters.exact("gpt-4o").orElseThrow();
    static final TokenCounter CL100K = TokenCounters.exact("gpt-4").orElseThrow();
    /** JTokkit on its own, for the cross-check: one lazy registry, as a new default one loads every encoding. */
    static final EncodingRegistry JTOKKIT = Encodings.newLazyEncodingRegistry();

    // --- known counts ---

    /**
     * Counts known from OpenAI's tiktoken (its cookbook shows "tiktoken is great!" as 6 tokens
     * in both encodings, and "hello world" is [15339, 1917] in cl100k_base, [24912, 2375] in
     * o200k_base); the others were taken from tiktoken's output for the same strings.
     */
    @ParameterizedTest(name = "{0}: \"{1}\" is {2} tokens")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            o200k_base  | hello world                                  | 2
            cl100k_base | hello world                                  | 2
            o200k_base  | tiktoken is great!                           | 6
            cl100k_base | tiktoken is great!                           | 6
            o200k_base  | The quick brown fox jumps over the lazy dog. | 10
            cl100k_base | The quick brown fox jumps over the lazy dog. | 10
            o200k_base  | 你好世界                                      | 2
            cl100k_base | 你好世界                                      | 5
            o200k_base  | "    indented code"                          | 4
            cl100k_base | "    indented code"                          | 4
            """)
    void known_counts(String encoding, String text, int tokens) {
        TokenCounter counter = encoding.equals("o200k_base") ? O200K : CL100K;
        assertThat(counter.count(text)).isEqualTo(tokens);
        // cross-check against JTokkit itself, used directly
        EncodingType type = encoding.equals("o200k_base") ? EncodingType.O200K_BASE : EncodingType.CL100K_BASE;
        assertThat(JTOKKIT.getEncoding(type).countTokensOrdinary(text)).isEqualTo(tokens);
    }

    @Test
    void the_two_encodings_differ_where_o200k_is_larger() {
        // o200k_base's larger vocabulary takes CJK in bigger pieces
        assertThat(O200K.count("你好世界")).isLessThan(CL100K.count("你好世界"));
    }

    @Test
    void special_token_text_is_counted_as_the_ordinary_text_it_is_in_a_message() {
        assertThat(O200K.count("<|endoftext|>")).isEqualTo(7);
        assertThat(CL100K.count("<|endoftext|>")).isEqualTo(7);
    }

    @Test
    void empty_text_is_0_and_null_is_refused() {
        assertThat(O200K.count("")).isZero();
        assertThat(CL100K.count("")).isZero();
        assertThatThrownBy(() -> O200K.count(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void counters_name_their_encoding() {
        assertThat(O200K).hasToString("o200k_base");
        assertThat(CL100K).hasToString("cl100k_base");
    }

    // --- the model-name table ---

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(textBlock = """
            gpt-4o,                          o200k_base
            gpt-4o-mini,                     o200k_base
            gpt-4o-2024-08-06,               o200k_base
            chatgpt-4o-latest,               o200k_base
            gpt-4.1,                         o200k_base
            gpt-4.1-nano,                    o200k_base
            gpt-4.5-preview,                 o200k_base
            gpt-5,                           o200k_base
            gpt-5-mini,                      o200k_base
            gpt-5.1,                         o200k_base
            o1,                              o200k_base
            o1-mini,                         o200k_base
            o3,                              o200k_base
            o3-mini,                         o200k_base
            o4-mini,                         o200k_base
            openai/gpt-4o,                   o200k_base
            openai/o3-mini,                  o200k_base
            OpenAI/GPT-4o-Mini,              o200k_base
            '  gpt-4o  ',                    o200k_base
            ft:gpt-4o-mini:acme::abc123,     o200k_base
            gpt-4,                           cl100k_base
            gpt-4-turbo,                     cl100k_base
            gpt-4-32k,                       cl100k_base
            gpt-4-0613,                      cl100k_base
            openai/gpt-4-turbo,              cl100k_base
            gpt-3.5-turbo,                   cl100k_base
            gpt-3.5-turbo-instruct,          cl100k_base
            gpt-35-turbo,                    cl100k_base
            text-embedding-3-small,          cl100k_base
            text-embedding-3-large,          cl100k_base
            text-embedding-ada-002,          cl100k_base
            """)
    void models_map_to_their_encoding(String model, String encoding) {
        assertThat(TokenCounters.encodingFor(model)).map(EncodingType::getName).contains(encoding);
        TokenCounter counter = TokenCounters.forModel(model);
        assertThat(counter).hasToString(encoding);
        assertThat(TokenCounters.exact(model)).isPresent();
    }

    @ParameterizedTest(name = "{0} is estimated")
    @CsvSource(textBlock = """
            llama3.2
            llama3.2:3b
            meta-llama/llama-3.1-8b-instruct
            qwen2.5-coder:7b
            mistral-large-latest
            claude-sonnet-4-5
            anthropic/claude-3.5-sonnet
            gemma2
            deepseek-r1
            gpt-oss:20b
            gpt-4x
            o10
            o2
            gpt-3
            text-embedding-004
            mock
            ''
            """)
    void other_models_fall_back_to_the_documented_estimate(String model) {
        String name = model == null ? "" : model;
        assertThat(TokenCounters.exact(name)).isEmpty();
        TokenCounter counter = TokenCounters.forModel(name);
        assertThat(counter).isInstanceOf(EstimatingTokenCounter.class);
        assertThat(counter.count("Hello, world!")).isEqualTo(4); // EstimatingTokenCounter's documented example
    }

    @Test
    void a_null_model_is_refused() {
        assertThatThrownBy(() -> TokenCounters.forModel(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> TokenCounters.exact(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void counters_share_the_loaded_encoding() {
        assertThat(TokenCounters.exact("gpt-4o")).isEqualTo(TokenCounters.exact("o3-mini"));
        assertThat(TokenCounters.exact("gpt-4o")).isNotEqualTo(TokenCounters.exact("gpt-4"));
        assertThat(TokenCounters.exact("llama3")).isEqualTo(Optional.empty());
    }

    // --- use ---

    @Test
    void plugs_into_conversation_memory() {
        ConversationMemory memory = ConversationMemory.builder().tokenCounter(TokenCounters.forModel("gpt-4o")).build();
        memory.addTurn(List.of(Message.user("hello world")));
        assertThat(memory.tokenCount()).isEqualTo(2 + ConversationMemory.MESSAGE_OVERHEAD_TOKENS);
    }

    @Test
    void counters_are_safe_to_share_between_threads() throws Exception {
        List<String> texts = List.of("hello world", "The quick brown fox jumps over the lazy dog.", "你好世界",
                "tiktoken is great!", "x".repeat(5_000), "def f(x):\n    return x * 2\n");
        List<Integer> expectedO200k = texts.stream().map(O200K::count).toList();
        List<Integer> expectedCl100k = texts.stream().map(CL100K::count).toList();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Callable<Boolean>> jobs = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                int offset = t;
                jobs.add(() -> {
                    // each job gets its counters anew, so the shared registry is hit concurrently too
                    TokenCounter o200k = TokenCounters.forModel(offset % 2 == 0 ? "gpt-4o" : "openai/gpt-5");
                    TokenCounter cl100k = TokenCounters.forModel("gpt-3.5-turbo");
                    for (int round = 0; round < 50; round++) {
                        int i = (offset + round) % texts.size();
                        if (o200k.count(texts.get(i)) != expectedO200k.get(i)
                                || cl100k.count(texts.get(i)) != expectedCl100k.get(i)) {
                            return false;
                        }
                    }
                    return true;
                });
            }
            for (Future<Boolean> result : pool.invokeAll(jobs)) {
                assertThat(result.get()).isTrue();
            }
        }
    }
}
