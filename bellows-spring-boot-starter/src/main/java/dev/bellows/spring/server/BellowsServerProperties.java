package dev.bellows.spring.server;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code bellows.server.*}: the agent over HTTP in a Spring MVC application (AG-UI, OpenAI's
 * chat completions and the chat page of bellows-server), off unless {@code enabled}.
 */
@ConfigurationProperties("bellows.server")
public class BellowsServerProperties {

    /** Serve the agent under {@link #getPath() path}: AG-UI at PATH/agui, chat completions at PATH/v1/chat/completions, the page at PATH/. */
    private boolean enabled;

    /** Where it is served, e.g. {@code /bellows}. */
    private String path = "/bellows";

    /** The bearer token every endpoint but the page and health asks for; none by default. */
    private String authToken;

    /** The most runs at once; more get 429. */
    private int maxRuns = 32;

    /** The largest request body in bytes; larger ones get 413. */
    private long maxRequestBytes = 1024 * 1024;

    /**
     * Host names (no port) the agent's endpoints answer besides loopback ones and the address a
     * connection arrived on: the names the application is reached by. Any other Host gets 403.
     */
    private List<String> allowedHosts = new ArrayList<>();

    /** Origins ({@code https://app.example.com}) whose pages may call the endpoints besides the application's own. */
    private List<String> allowedOrigins = new ArrayList<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public String getAuthToken() {
        return authToken;
    }

    public void setAuthToken(String authToken) {
        this.authToken = authToken;
    }

    public int getMaxRuns() {
        return maxRuns;
    }

    public void setMaxRuns(int maxRuns) {
        this.maxRuns = maxRuns;
    }

    public long getMaxRequestBytes() {
        return maxRequestBytes;
    }

    public void setMaxRequestBytes(long maxRequestBytes) {
        this.maxRequestBytes = maxRequestBytes;
    }

    public List<String> getAllowedHosts() {
        return allowedHosts;
    }

    public void setAllowedHosts(List<String> allowedHosts) {
        this.allowedHosts = new ArrayList<>(allowedHosts);
    }

    public List<String> getAllowedOrigins() {
        return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
        this.allowedOrigins = new ArrayList<>(allowedOrigins);
    }

    @Override
    public String toString() { // no token, ever
        return "BellowsServerProperties[enabled=" + enabled + ", path=" + path + "]";
    }
}
