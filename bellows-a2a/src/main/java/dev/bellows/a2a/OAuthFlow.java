package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** One OAuth 2.0 flow: the URLs its kind defines, and its scopes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record OAuthFlow(String authorizationUrl, String deviceAuthorizationUrl, String tokenUrl, String refreshUrl,
        Map<String, String> scopes, Boolean pkceRequired) {
}
