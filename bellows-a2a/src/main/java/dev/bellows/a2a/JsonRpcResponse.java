package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** A JSON-RPC 2.0 response: exactly one of {@code result} or {@code error}; {@code id} is always written (null when the request's could not be read). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record JsonRpcResponse(String jsonrpc, @JsonInclude(JsonInclude.Include.ALWAYS) Object id, Object result,
        JsonRpcError error) {
    /** A success. */
    public static JsonRpcResponse result(Object id, Object result) {
        return new JsonRpcResponse("2.0", id, result, null);
    }

    /** A failure. */
    public static JsonRpcResponse error(Object id, JsonRpcError error) {
        return new JsonRpcResponse("2.0", id, null, error);
    }
}
