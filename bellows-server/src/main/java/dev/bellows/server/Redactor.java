package dev.bellows.server;

import java.util.List;

/**
 * Keeps the server's secrets (the bearer token, the model's API key) out of everything it
 * writes: any occurrence in a response, whatever produced the text (a model repeating its
 * prompt, a tool echoing its environment, an error quoting a request), becomes
 * {@code [REDACTED]}. Costs one search per secret per write, none without secrets.
 */
final class Redactor {

    static final String MARK = "[REDACTED]";
    private final List<String> secrets;

    Redactor(List<String> secrets) {
        this.secrets = secrets.stream().filter(s -> s != null && s.length() >= 4).distinct().toList();
    }

    String apply(String text) {
        String result = text;
        for (String secret : secrets) {
            if (result.contains(secret)) {
                result = result.replace(secret, MARK);
            }
        }
        return result;
    }
}
