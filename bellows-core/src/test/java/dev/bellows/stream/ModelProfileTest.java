package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ModelProfileTest {

    @ParameterizedTest
    @CsvSource({
            "openai/gpt-oss-120b, harmony, false, false",
            "Qwen/Qwen3-Coder-480B-A35B-Instruct, qwen3_coder, false, false",
            "Qwen/Qwen3-235B-A22B-Thinking-2507, hermes, true, true",
            "Qwen/QwQ-32B, hermes, true, true",
            "Qwen/Qwen3-8B, hermes, false, true",
            "Qwen/Qwen2.5-7B-Instruct, hermes, false, false",
            "NousResearch/Hermes-3-Llama-3.1-8B, hermes, false, false",
            "deepseek-ai/DeepSeek-R1-0528, deepseek_v3, true, false",
            "deepseek-ai/DeepSeek-V3.1, deepseek_v3, false, false",
            "moonshotai/Kimi-K2-Instruct, kimi_k2, false, false",
            "moonshotai/Kimi-VL-A3B-Thinking-2506, kimi_think, false, false",
            "moonshotai/Kimi-K2-Thinking, kimi_k2, false, false",
            "zai-org/GLM-4.5-Air, glm45, false, false",
            "MiniMaxAI/MiniMax-M2, minimax_m2, false, false",
            "mistralai/Mistral-Small-3.2-24B-Instruct-2506, mistral, false, false",
            "mistralai/Magistral-Small-2509, mistral, false, false",
            "meta-llama/Llama-3.1-8B-Instruct, llama3_json, false, false",
            "gpt-4o-mini, bellows, false, false",
    })
    void modelNamesPickTheirProfile(String model, String dialect, boolean thinkingOpen, boolean toolEndsThinking) {
        ModelProfile profile = ModelProfile.forModel(model);
        assertThat(profile.dialect().name()).isEqualTo(dialect);
        assertThat(profile.thinkingOpen()).isEqualTo(thinkingOpen);
        assertThat(profile.toolEndsThinking()).isEqualTo(toolEndsThinking);
    }

    @Test
    void applyingAProfileSetsTheDialectAndSwitchesOnItsOptionsOnly() {
        StreamOptions options = ModelProfile.forModel("Qwen/QwQ-32B").applyTo(StreamOptions.builder()).build();
        assertThat(options.dialect().name()).isEqualTo("hermes");
        assertThat(options.thinkingOpen()).isTrue();
        assertThat(options.toolEndsThinking()).isTrue();
        StreamOptions kept = ModelProfile.forModel("gpt-4o")
                .applyTo(StreamOptions.builder().thinkingOpen(true)).build();
        assertThat(kept.thinkingOpen()).as("an option the caller set stays set").isTrue();
        assertThat(kept.dialect()).isSameAs(Dialect.BELLOWS);
    }
}
