package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/** An output of a task (A2A {@code Artifact}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Artifact(String artifactId, String name, String description, List<Part> parts, Map<String, Object> metadata,
        List<String> extensions) {
    /** An artifact with the given id, name and parts. */
    public static Artifact of(String artifactId, String name, List<Part> parts) {
        return new Artifact(artifactId, name, null, List.copyOf(parts), null, null);
    }
}
