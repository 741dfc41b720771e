package dev.bellows.provider;

import dev.bellows.secret.Secrets;
import java.util.Objects;

/**
 * An API key, kept out of every output: {@link #toString()} is redacted, and providers put
 * {@link #reveal()} only into the request header that needs it. Making one registers the key
 * with {@link Secrets}, so that every output of the process redacts it.
 */
public final class ApiKey {

    private final String value;

    private ApiKey(String value) {
        this.value = value;
    }

    /**
     * @throws IllegalArgumentException for a blank key (the message does not repeat it)
     */
    public static ApiKey of(String value) {
        Objects.requireNonNull(value, "value");
        if (value.isBlank()) {
            throw new IllegalArgumentException("the API key is empty");
        }
        String key = value.strip();
        Secrets.register(key); // kept out of every output of this process from now on
        return new ApiKey(key);
    }

    /** The key itself, for the one header that carries it. Never log or print it. */
    public String reveal() {
        return value;
    }

    /** Replaces every occurrence of the key in {@code text} (error bodies can echo it). */
    public String redact(String text) {
        return text == null ? null : text.replace(value, "[REDACTED]");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ApiKey that && value.equals(that.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return "ApiKey[REDACTED]";
    }
}
