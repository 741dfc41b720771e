package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** One way to authenticate to an agent: exactly one of the five schemes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SecurityScheme(APIKeySecurityScheme apiKeySecurityScheme, HTTPAuthSecurityScheme httpAuthSecurityScheme,
        OAuth2SecurityScheme oauth2SecurityScheme, OpenIdConnectSecurityScheme openIdConnectSecurityScheme,
        MutualTlsSecurityScheme mtlsSecurityScheme) {
    /** HTTP bearer authentication ({@code Authorization: Bearer TOKEN}). */
    public static SecurityScheme bearer(String description) {
        return new SecurityScheme(null, new HTTPAuthSecurityScheme(description, "Bearer", null), null, null, null);
    }
}
