package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Who sent a message, written in JSON as {@code ROLE_USER} / {@code ROLE_AGENT}. */
public enum Role {
    @JsonProperty("ROLE_UNSPECIFIED") UNSPECIFIED,
    @JsonProperty("ROLE_USER") USER,
    @JsonProperty("ROLE_AGENT") AGENT
}
