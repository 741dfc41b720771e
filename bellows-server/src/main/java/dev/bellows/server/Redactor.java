package dev.bellows.server;

import dev.bellows.secret.Secrets;
import java.util.List;

/**
 * Keeps secrets (the bearer token, the model's API key, and every other value registered with
 * the process-wide {@link Secrets}) out of everything the server writes: any occurrence in a
 * response, whatever produced the text (a model repeating its prompt, a tool echoing its
 * environment, an error quoting a request), becomes {@code [REDACTED]}. The secrets given here
 * are registered there too, so that log lines and stored sessions are kept clean as well.
 */
final class Redactor {

    static final String MARK = Secrets.REDACTED;

    Redactor(List<String> secrets) {
        Secrets.register(secrets);
    }

    String apply(String text) {
        return Secrets.redact(text);
    }
}
