package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** A JSON-RPC 2.0 request: {@code id} a string or number, {@code params} the method's parameters as plain JSON values (maps, lists, ...). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record JsonRpcRequest(String jsonrpc, Object id, String method, Object params) {
    /** A request with version "2.0". */
    public static JsonRpcRequest of(Object id, String method, Object params) {
        return new JsonRpcRequest("2.0", id, method, params);
    }
}
