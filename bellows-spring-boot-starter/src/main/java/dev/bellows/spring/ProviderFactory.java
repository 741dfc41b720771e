package dev.bellows.spring;

import dev.bellows.anthropic.AnthropicProvider;
import dev.bellows.http.HttpSettings;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.Provider;
import org.springframework.core.env.Environment;

/** Builds the provider the {@code bellows.*} properties describe, and says which model to use. */
final class ProviderFactory {

    static final String OPENAI_KEY_VARIABLE = "OPENAI_API_KEY";
    static final String ANTHROPIC_KEY_VARIABLE = "ANTHROPIC_API_KEY";
    /** The CLI's defaults on the providers' own endpoints. */
    static final String OPENAI_DEFAULT_MODEL = "gpt-4o-mini";
    static final String ANTHROPIC_DEFAULT_MODEL = "claude-sonnet-4-5";

    private ProviderFactory() {
    }

    static Provider provider(BellowsProperties properties, Environment environment) {
        ApiKey key = apiKey(properties, environment);
        String baseUrl = properties.getBaseUrl();
        if (baseUrl == null && key == null) {
            String variable = keyVariable(properties);
            throw new IllegalStateException("no API key for " + properties.getProvider().name().toLowerCase(java.util.Locale.ROOT)
                    + "'s own endpoint: set the environment variable " + variable + " or bellows.api-key,"
                    + " or bellows.base-url for a server that needs none (Ollama: http://localhost:11434/v1)");
        }
        HttpSettings http = new HttpSettings(properties.getConnectTimeout(), properties.getTimeout());
        return switch (properties.getProvider()) {
            case OPENAI -> {
                OpenAiProvider.Builder builder = OpenAiProvider.builder().httpSettings(http);
                if (baseUrl != null) {
                    builder.baseUrl(baseUrl);
                }
                if (key != null) {
                    builder.apiKey(key);
                }
                yield builder.build();
            }
            case ANTHROPIC -> {
                AnthropicProvider.Builder builder = AnthropicProvider.builder().httpSettings(http);
                if (baseUrl != null) {
                    builder.baseUrl(baseUrl);
                }
                if (key != null) {
                    builder.apiKey(key);
                }
                yield builder.build();
            }
        };
    }

    /** {@code bellows.model}, else the provider's default on its own endpoint. */
    static String model(BellowsProperties properties) {
        if (properties.getModel() != null) {
            return properties.getModel();
        }
        if (properties.getBaseUrl() != null) {
            throw new IllegalStateException("bellows.model is not set: name the model the server at "
                    + properties.getBaseUrl() + " should run, e.g. bellows.model=llama3.1");
        }
        return switch (properties.getProvider()) {
            case OPENAI -> OPENAI_DEFAULT_MODEL;
            case ANTHROPIC -> ANTHROPIC_DEFAULT_MODEL;
        };
    }

    /** {@code bellows.api-key}, else the provider's environment variable; null when neither is set. */
    private static ApiKey apiKey(BellowsProperties properties, Environment environment) {
        if (properties.apiKey() != null) {
            return properties.apiKey();
        }
        String value = environment.getProperty(keyVariable(properties));
        return value == null || value.isBlank() ? null : ApiKey.of(value);
    }

    private static String keyVariable(BellowsProperties properties) {
        return switch (properties.getProvider()) {
            case OPENAI -> OPENAI_KEY_VARIABLE;
            case ANTHROPIC -> ANTHROPIC_KEY_VARIABLE;
        };
    }
}
