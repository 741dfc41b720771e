package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/** A JSON-RPC 2.0 error: code, message, and details (each with an {@code @type}, as {@code google.rpc.ErrorInfo}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record JsonRpcError(int code, String message, List<Map<String, Object>> data) {
}
