package dev.bellows.mcp.auth;

import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.token.BearerTokenError;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a server's 401 or 403 says in {@code WWW-Authenticate: Bearer ...}: the error, the
 * scopes it wants, and where its protected-resource metadata is (RFC 9728). The OAuth SDK
 * reads the error and scope; {@code resource_metadata}, which it does not know, is read here.
 *
 * @param status           the HTTP status (401 or 403)
 * @param error            {@code invalid_token}, {@code insufficient_scope} ..., or null
 * @param description      the server's {@code error_description}, or null
 * @param scopes           the {@code scope} asked for; empty when none
 * @param resourceMetadata the {@code resource_metadata} URL, or null
 */
public record Challenge(int status, String error, String description, List<String> scopes, URI resourceMetadata) {

    private static final Pattern RESOURCE_METADATA = Pattern.compile(
            "(?i)(?:^|[\\s,])resource_metadata\\s*=\\s*(?:\"([^\"]*)\"|([^\\s,]+))");

    public Challenge {
        scopes = List.copyOf(scopes);
    }

    /** Reads the {@code WWW-Authenticate} values of an answer with this status. */
    public static Challenge parse(int status, List<String> wwwAuthenticate) {
        String error = null;
        String description = null;
        List<String> scopes = new ArrayList<>();
        URI metadata = null;
        for (String header : wwwAuthenticate) {
            if (!header.regionMatches(true, 0, "Bearer", 0, 6)) {
                continue;
            }
            try {
                BearerTokenError parsed = BearerTokenError.parse(header);
                error = parsed.getCode();
                description = parsed.getDescription();
                if (parsed.getScope() != null) {
                    scopes.addAll(parsed.getScope().toStringList());
                }
            } catch (ParseException | RuntimeException e) {
                // a challenge the SDK cannot read: no error or scope from it
            }
            Matcher matcher = RESOURCE_METADATA.matcher(header);
            if (matcher.find()) {
                String value = matcher.group(1) != null ? matcher.group(1) : matcher.group(2);
                try {
                    URI uri = new URI(value);
                    if (("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) && uri.getHost() != null) {
                        metadata = uri;
                    }
                } catch (java.net.URISyntaxException e) {
                    // not a URL: discovered at the well-known locations instead
                }
            }
            break;
        }
        return new Challenge(status, error, description, scopes, metadata);
    }

    /** Whether this is a 403 asking for more scopes (step-up). */
    public boolean insufficientScope() {
        return status == 403 && "insufficient_scope".equals(error);
    }
}
