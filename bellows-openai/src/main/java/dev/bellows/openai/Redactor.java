package dev.bellows.openai;

import dev.bellows.http.SafeUris;

import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import java.net.URI;
import java.util.Collection;
import java.util.List;

/**
 * Keeps secrets out of messages: the API key, and the values of extra headers (which may be a
 * gateway's key). Values shorter than {@link #MIN_SECRET_LENGTH} characters are left alone:
 * replacing every "1" or "on" in a message would garble it and protect nothing.
 */
final class Redactor {

    static final int MIN_SECRET_LENGTH = 8;
    private static final String MASK = "[REDACTED]";

    private final ApiKey apiKey;
    private final List<String> secrets;

    Redactor(ApiKey apiKey, Collection<String> headerValues) {
        this.apiKey = apiKey;
        this.secrets = headerValues.stream().map(String::strip).filter(v -> v.length() >= MIN_SECRET_LENGTH).toList();
    }

    String redact(String text) {
        if (text == null) {
            return null;
        }
        String result = apiKey == null ? text : apiKey.redact(text);
        for (String secret : secrets) {
            result = result.replace(secret, MASK);
        }
        return result;
    }

    /** The same failure with a redacted message; the exception itself when there was nothing to hide. */
    ProviderException redact(ProviderException e) {
        String message = e.getMessage();
        String redacted = redact(message);
        if (redacted.equals(message)) {
            return e;
        }
        ProviderException copy = new ProviderException(e.kind(), redacted,
                e.statusCode().isPresent() ? e.statusCode().getAsInt() : null, e.retryAfter().orElse(null), e.getCause());
        copy.setStackTrace(e.getStackTrace());
        return copy;
    }

}
