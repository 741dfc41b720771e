package dev.bellows.mcp.auth;

import dev.bellows.secret.Secrets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * A secret of MCP authorization: an access or refresh token, a client secret, an ID token or
 * ID-JAG, an authorization code, a PKCE verifier, a private key's text. It never shows its
 * value ({@code toString()} is {@code [REDACTED]}); {@link #reveal()} gives it to the one place
 * that sends it.
 *
 * <p>Every secret value of this package is made by {@link #of(String)}, and nowhere else: the
 * one place that registers them with the process-wide {@link Secrets}, which every output path
 * redacts; {@link #redact(String)} also takes every live secret out of a text (messages quoting
 * a server, say). Thread-safe.
 */
public final class OAuthSecret {

    /** Shorter values are not redacted: they would blank out ordinary words. */
    private static final int SHORTEST_REDACTED = 4;

    /** The secrets still referenced somewhere: weakly held, so the set never outgrows the live ones. */
    private static final Set<OAuthSecret> LIVE = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private final String value;

    private OAuthSecret(String value) {
        this.value = value;
    }

    /**
     * The one factory of secret values: every token, client secret, code, verifier and
     * assertion of this package goes through it.
     */
    public static OAuthSecret of(String value) {
        Objects.requireNonNull(value, "value");
        OAuthSecret secret = new OAuthSecret(value);
        if (value.length() >= SHORTEST_REDACTED) {
            LIVE.add(secret);
        }
        // Also in the process-wide registry, so that every output path (a tool result that echoes
        // its token, a stored session, a log line) redacts it, not only this package's messages.
        Secrets.register(value);
        return secret;
    }

    /** The value, for the request that sends it; never for a message. */
    public String reveal() {
        return value;
    }

    /** The text with every live secret's value replaced by {@code [REDACTED]}; null stays null. */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        List<String> values;
        synchronized (LIVE) {
            values = new ArrayList<>(LIVE.size());
            for (OAuthSecret secret : LIVE) {
                values.add(secret.value);
            }
        }
        // Longest first: a secret that contains another is taken out whole.
        values.sort((a, b) -> b.length() - a.length());
        String out = text;
        for (String value : values) {
            if (out.contains(value)) {
                out = out.replace(value, "[REDACTED]");
            }
        }
        return out;
    }

    /**
     * Whether the other holds the same value (null: false). Not {@code equals}: secrets compare
     * by identity, so that the set of live ones holds each object, whichever of two equal
     * values is collected first.
     */
    public boolean sameValue(OAuthSecret other) {
        return other != null && other.value.equals(value);
    }

    @Override
    public String toString() {
        return "[REDACTED]";
    }
}
