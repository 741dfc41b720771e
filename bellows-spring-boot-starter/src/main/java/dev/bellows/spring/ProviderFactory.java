package dev.bellows.spring;

import dev.bellows.anthropic.AnthropicProvider;
import dev.bellows.http.HttpSettings;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.Provider;
import java.util.Locale;
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
            throw new BellowsConfigurationException("No API key for the " + properties.getProvider().name().toLowerCase(Locale.ROOT)
                    + " provider's own endpoint.", "Set the environment variable " + keyVariable(properties)
                    + " or the property bellows.api-key; or set bellows.base-url to a server that needs no key"
                    + " (Ollama: http://localhost:11434/v1).");
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
            throw new BellowsConfigurationException("bellows.model is not set, and the server at "
                    + properties.getBaseUrl() + " has no default model.",
                    "Set bellows.model to the model that server should run, e.g. bellows.model=llama3.1.");
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
