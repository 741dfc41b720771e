package dev.bellows.mcp.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Secrets never show their value, and every live one is taken out of a text. */
class OAuthSecretTest {

    @Test
    void a_secret_never_shows_its_value_and_live_ones_are_redacted_longest_first() {
        OAuthSecret token = OAuthSecret.of("access-0123456789");
        OAuthSecret longer = OAuthSecret.of("access-0123456789-and-more");
        OAuthSecret again = OAuthSecret.of("access-0123456789"); // an equal value: both objects count
        assertThat(token).hasToString("[REDACTED]");
        assertThat(List.of(token).toString()).doesNotContain("access");
        assertThat(OAuthSecret.redact("sent access-0123456789-and-more and access-0123456789."))
                .isEqualTo("sent [REDACTED] and [REDACTED].");
        assertThat(token.sameValue(again)).isTrue();
        assertThat(token.sameValue(longer)).isFalse();
        assertThat(token).isNotEqualTo(again); // identity: the live set keeps each object
        assertThat(OAuthSecret.redact("abc")).isEqualTo("abc");
        assertThat(OAuthSecret.redact(null)).isNull();
    }

    @Test
    void a_challenge_is_read_with_its_error_scope_and_resource_metadata() {
        Challenge challenge = Challenge.parse(403, List.of("Bearer error=\"insufficient_scope\", scope=\"mcp:basic mcp:write\", "
                + "resource_metadata=\"https://h.example/.well-known/oauth-protected-resource/mcp\", "
                + "error_description=\"more please\""));
        assertThat(challenge.insufficientScope()).isTrue();
        assertThat(challenge.scopes()).containsExactly("mcp:basic", "mcp:write");
        assertThat(challenge.description()).isEqualTo("more please");
        assertThat(challenge.resourceMetadata()).hasToString("https://h.example/.well-known/oauth-protected-resource/mcp");
        Challenge bare = Challenge.parse(401, List.of());
        assertThat(bare.error()).isNull();
        assertThat(bare.scopes()).isEmpty();
        assertThat(bare.resourceMetadata()).isNull();
    }

    @Test
    void a_resource_names_the_server_when_it_has_its_origin_and_a_prefix_of_its_path() {
        java.net.URI server = java.net.URI.create("https://mcp.example.com/tenant/mcp");
        assertThat(Discovery.covers(java.net.URI.create("https://mcp.example.com/tenant/mcp"), server)).isTrue();
        assertThat(Discovery.covers(java.net.URI.create("https://mcp.example.com"), server)).isTrue();
        assertThat(Discovery.covers(java.net.URI.create("https://mcp.example.com/tenant/"), server)).isTrue();
        assertThat(Discovery.covers(java.net.URI.create("https://MCP.example.com:443/tenant"), server)).isTrue();
        assertThat(Discovery.covers(java.net.URI.create("https://mcp.example.com/ten"), server)).isFalse();
        assertThat(Discovery.covers(java.net.URI.create("https://evil.example.com/tenant/mcp"), server)).isFalse();
        assertThat(Discovery.covers(java.net.URI.create("http://mcp.example.com/tenant/mcp"), server)).isFalse();
        assertThat(Discovery.covers(java.net.URI.create("https://mcp.example.com:8443/tenant/mcp"), server)).isFalse();
    }
}
