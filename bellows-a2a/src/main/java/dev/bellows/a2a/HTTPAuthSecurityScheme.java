package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** HTTP authentication ({@code Basic}, {@code Bearer}, ...). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record HTTPAuthSecurityScheme(String description, String scheme, String bearerFormat) {
}
