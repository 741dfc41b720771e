package dev.bellows.mcp.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTPS rule for authorization server endpoints, decided from the URL's text alone (no
 * name is looked up, nothing is sent): HTTPS anywhere, plain HTTP only on a loopback host.
 */
class AuthServerUrlsTest {

    @ParameterizedTest
    @ValueSource(strings = {"https://auth.example/token", "https://192.0.2.2/", "http://localhost:8080/token",
            "http://LOCALHOST./token", "http://127.0.0.1:9000/", "http://127.255.3.4/", "http://[::1]:8080/token",
            "http://[0:0:0:0:0:0:0:1]/"})
    void https_anywhere_and_plain_http_on_loopback_are_allowed(String url) {
        assertThatCode(() -> AuthServerUrls.requireSecure(URI.create(url), "the token endpoint")).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://192.0.2.2/token", "http://auth.example/", "http://0.0.0.0:8080/",
            "http://128.0.0.1/", "http://127.0.0.1.example/", "http://localhost.example/", "http://[::2]/",
            "http://10.0.0.1/", "ftp://127.0.0.1/", "http:relative", "http://user:pw@auth.example/token"})
    void plain_http_off_loopback_and_other_schemes_are_refused_naming_the_url_and_the_rule(String url) {
        assertThatThrownBy(() -> AuthServerUrls.requireSecure(URI.create(url), "the token endpoint"))
                .isInstanceOf(OAuthException.class)
                .hasMessageStartingWith("the token endpoint ")
                .hasMessageContaining("is not an HTTPS URL: refused before any request to it")
                .hasMessageContaining("plain http only on a loopback host: localhost, 127.0.0.0/8, ::1")
                .hasMessageNotContaining("pw@");
    }

    @Test
    void a_name_is_never_taken_for_loopback_by_what_it_resolves_to() {
        assertThat(AuthServerUrls.isLoopback("localhost")).isTrue();
        assertThat(AuthServerUrls.isLoopback("127.0.0.1")).isTrue();
        assertThat(AuthServerUrls.isLoopback("[::1]")).isTrue();
        assertThat(AuthServerUrls.isLoopback("ip6-localhost")).isFalse();
        assertThat(AuthServerUrls.isLoopback("127.0.0.256")).isFalse();
        assertThat(AuthServerUrls.isLoopback(null)).isFalse();
    }
}
