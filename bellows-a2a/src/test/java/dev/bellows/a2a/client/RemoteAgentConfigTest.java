package dev.bellows.a2a.client;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The "a2a" entries of bellows.json: checked with messages naming the place, headers from the environment. */
class RemoteAgentConfigTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    private static List<RemoteAgentConfig> parse(String json) throws Exception {
        return RemoteAgentConfig.parse(JSON.readTree(json), "bellows.json: a2a");
    }

    @Test
    void headersComeFromTheEnvironmentAndAreNeverShown() throws Exception {
        RemoteAgentConfig helper = parse("""
                {"helper": {"url": "https://agent.example.com", "headers": {"Authorization": "Bearer ${HELPER_TOKEN}", "X-Team": "docs"}}}
                """).getFirst();
        assertThat(helper.name()).isEqualTo("helper");
        assertThat(helper.headers(Map.of("HELPER_TOKEN", "t0ps3cret")::get))
                .containsExactly(Map.entry("Authorization", "Bearer t0ps3cret"), Map.entry("X-Team", "docs"));
        assertThat(helper.toString()).contains("Authorization", "X-Team").doesNotContain("HELPER_TOKEN", "Bearer");
        assertThatThrownBy(() -> helper.headers(Map.<String, String>of()::get))
                .hasMessage("a2a.helper.headers.Authorization: the environment variable HELPER_TOKEN is not set");
    }

    @Test
    void badEntriesNameThePlace() {
        assertThatThrownBy(() -> parse("[]")).hasMessageStartingWith("bellows.json: a2a must be an object");
        assertThatThrownBy(() -> parse("{\"a b\": {\"url\": \"http://x\"}}")).hasMessageStartingWith("bellows.json: a2a.a b: a name");
        assertThatThrownBy(() -> parse("{\"h\": {}}")).hasMessageContaining("a2a.h.url: the agent's URL");
        assertThatThrownBy(() -> parse("{\"h\": {\"url\": \"ftp://x\"}}")).hasMessageContaining("a2a.h.url: not an http(s) URL");
        assertThatThrownBy(() -> parse("{\"h\": {\"url\": \"http://x\", \"token\": \"s3cret\"}}"))
                .hasMessageContaining("a2a.h: unknown key \"token\"").hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> parse("{\"h\": {\"url\": \"http://x\", \"headers\": {\"X\": 1}}}"))
                .hasMessageContaining("a2a.h.headers.X must be a string");
        assertThatThrownBy(() -> parse("{\"h\": {\"url\": \"http://x\", \"headers\": {\"Bad Name\": \"v\"}}}"))
                .hasMessageContaining("\"Bad Name\" is not a header name");
    }
}
