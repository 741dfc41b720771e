package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** One way to reach an agent: URL, binding ({@code JSONRPC}, {@code HTTP+JSON}, {@code GRPC}) and protocol version. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AgentInterface(String url, String protocolBinding, String tenant, String protocolVersion) {
    /** The JSON-RPC 2.0 binding. */
    public static final String JSONRPC = "JSONRPC";
    /** The HTTP+JSON (REST) binding. */
    public static final String HTTP_JSON = "HTTP+JSON";
    /** The gRPC binding. */
    public static final String GRPC = "GRPC";
    /** The protocol version this module speaks. */
    public static final String VERSION = "1.0";

    /** An interface of this protocol version. */
    public static AgentInterface of(String url, String protocolBinding) {
        return new AgentInterface(url, protocolBinding, null, VERSION);
    }
}
