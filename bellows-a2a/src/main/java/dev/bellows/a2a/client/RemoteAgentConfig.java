package dev.bellows.a2a.client;

import tools.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A remote A2A agent as configured: {@code "a2a": {"NAME": {"url": CARD_URL, "headers": {"X": "${ENV}"}}}}
 * in {@code bellows.json}. Header values are kept as written (with their {@code ${VAR}}
 * references) and resolved from the environment only when a client is made
 * ({@link #headers(Function)}); {@link #toString()} shows header names, never values.
 *
 * @param name    the agent's name (the key)
 * @param url     its URL: the base URL or the card's own URL
 * @param headers the headers sent with every request, values as written
 */
public record RemoteAgentConfig(String name, String url, Map<String, String> headers) {

    private static final Set<String> KEYS = Set.of("url", "headers");
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");
    private static final Pattern HEADER = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    public RemoteAgentConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(url, "url");
        headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));   // in the order written
    }

    /**
     * The entries of an {@code a2a} object, checked: a name of letters, digits, {@code _} and
     * {@code -}; an http(s) {@code url}; {@code headers} an object of strings with valid names.
     *
     * @param where how the object is named in messages ({@code bellows.json: "a2a"})
     * @throws IllegalArgumentException naming the entry and key at fault, never a header's value
     */
    public static List<RemoteAgentConfig> parse(JsonNode a2a, String where) {
        if (a2a == null || a2a.isNull()) {
            return List.of();
        }
        if (!a2a.isObject()) {
            throw new IllegalArgumentException(where + " must be an object of remote agents by name, e.g."
                    + " {\"helper\": {\"url\": \"https://agent.example.com\"}}");
        }
        List<RemoteAgentConfig> agents = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : a2a.properties()) {
            String name = entry.getKey();
            String at = where + "." + name;
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(at + ": a name is a letter, then letters, digits, _ or - (at most 64)");
            }
            JsonNode agent = entry.getValue();
            if (!agent.isObject()) {
                throw new IllegalArgumentException(at + " must be an object with \"url\"");
            }
            for (String key : agent.propertyNames()) {
                if (!KEYS.contains(key)) {
                    throw new IllegalArgumentException(at + ": unknown key \"" + key + "\" (known: headers, url)");
                }
            }
            JsonNode url = agent.get("url");
            if (url == null || !url.isString() || url.asString().isBlank()) {
                throw new IllegalArgumentException(at + ".url: the agent's URL (its base URL or its card's) is required");
            }
            try {
                A2aClient.cardUrl(url.asString());
            } catch (A2aClientException e) {
                throw new IllegalArgumentException(at + ".url: " + e.getMessage());
            }
            Map<String, String> headers = new LinkedHashMap<>();
            JsonNode given = agent.get("headers");
            if (given != null && !given.isNull()) {
                if (!given.isObject()) {
                    throw new IllegalArgumentException(at + ".headers must be an object of header names to strings");
                }
                for (Map.Entry<String, JsonNode> header : given.properties()) {
                    if (!HEADER.matcher(header.getKey()).matches()) {
                        throw new IllegalArgumentException(at + ".headers: \"" + header.getKey() + "\" is not a header name");
                    }
                    if (!header.getValue().isString()) {
                        throw new IllegalArgumentException(at + ".headers." + header.getKey() + " must be a string");
                    }
                    headers.put(header.getKey(), header.getValue().asString());
                }
            }
            agents.add(new RemoteAgentConfig(name, url.asString().strip(), headers));
        }
        return List.copyOf(agents);
    }

    /**
     * The headers with every {@code ${VAR}} replaced by the variable's value.
     *
     * @param env the environment ({@code System::getenv})
     * @throws IllegalArgumentException naming the header and the variable that is not set, never a value
     */
    public Map<String, String> headers(Function<String, String> env) {
        Map<String, String> resolved = new LinkedHashMap<>();
        headers.forEach((header, template) -> {
            Matcher matcher = REFERENCE.matcher(template);
            StringBuilder value = new StringBuilder();
            while (matcher.find()) {
                String variable = env.apply(matcher.group(1));
                if (variable == null) {
                    throw new IllegalArgumentException("a2a." + name + ".headers." + header + ": the environment variable "
                            + matcher.group(1) + " is not set");
                }
                matcher.appendReplacement(value, Matcher.quoteReplacement(variable));
            }
            matcher.appendTail(value);
            resolved.put(header, value.toString());
        });
        return resolved;
    }

    /** A client builder for the agent, its headers resolved from {@code env}. */
    public A2aClient.Builder client(Function<String, String> env) {
        return A2aClient.builder(url).headers(headers(env));
    }

    @Override
    public String toString() {
        return "RemoteAgentConfig[name=" + name + ", url=" + url + ", headers=" + headers.keySet() + "]";
    }
}
