package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** The OAuth 2.0 flow an agent supports: exactly one is set. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record OAuthFlows(OAuthFlow authorizationCode, OAuthFlow clientCredentials, OAuthFlow implicit, OAuthFlow password,
        OAuthFlow deviceCode) {
}
