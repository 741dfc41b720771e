package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** Schemes (by name in the card's {@code securitySchemes}) that together authenticate a request, each with its scopes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SecurityRequirement(Map<String, StringList> schemes) {
}
