package dev.bellows.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Wraps a transport to learn the JSON-RPC id the SDK gives each {@code tools/call}, so that a
 * call can be cancelled the protocol's way: a {@code notifications/cancelled} naming that id.
 * The SDK's client has no cancel of its own (disposing its Mono only forgets the answer), and
 * it chooses ids itself; Bellows marks each call with a unique {@code progressToken} in
 * {@code _meta} and notes the id of the request that carries it.
 */
final class TrackingTransport implements McpClientTransport {

    static final String TOKEN_PREFIX = "bellows-call-";

    private final McpClientTransport delegate;
    private final ConcurrentMap<String, Object> requestIds = new ConcurrentHashMap<>();

    TrackingTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    McpClientTransport delegate() {
        return delegate;
    }

    @Override
    public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest request
                && McpSchema.METHOD_TOOLS_CALL.equals(request.method())
                && request.params() instanceof McpSchema.CallToolRequest call
                && call.meta() != null
                && call.meta().get("progressToken") instanceof String token
                && token.startsWith(TOKEN_PREFIX)) {
            requestIds.put(token, request.id());
        }
        return delegate.sendMessage(message);
    }

    /**
     * Sends {@code notifications/cancelled} for the call marked with {@code token}, if its
     * request was sent. Never blocks; a failure to send is ignored (the server may be gone).
     */
    void cancel(String token, String reason) {
        Object id = requestIds.remove(token);
        if (id == null) {
            return;
        }
        McpSchema.JSONRPCNotification notification = new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                "notifications/cancelled", Map.of("requestId", id, "reason", reason));
        delegate.sendMessage(notification).subscribe(ignored -> { }, error -> { });
    }

    /** The call ended: its id is no longer needed. */
    void forget(String token) {
        requestIds.remove(token);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }
}
