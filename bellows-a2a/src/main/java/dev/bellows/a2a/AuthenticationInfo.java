package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** The credentials a push webhook is called with: {@code Authorization: SCHEME CREDENTIALS}. {@code toString} leaves the credentials out. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AuthenticationInfo(String scheme, String credentials) {
    @Override
    public String toString() {
        return "AuthenticationInfo[scheme=" + scheme + "]";
    }
}
