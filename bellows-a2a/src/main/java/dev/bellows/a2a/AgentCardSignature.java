package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** A JWS signature of an agent card ({@code protected} header, {@code signature}, unprotected {@code header}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AgentCardSignature(@JsonProperty("protected") String protectedHeader, String signature,
        Map<String, Object> header) {
}
