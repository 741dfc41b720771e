package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** A streamed artifact, or a chunk of one: {@code append} adds the parts to the artifact of the same id sent before; {@code lastChunk} marks its end. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TaskArtifactUpdateEvent(String taskId, String contextId, Artifact artifact, Boolean append, Boolean lastChunk,
        Map<String, Object> metadata) {
}
