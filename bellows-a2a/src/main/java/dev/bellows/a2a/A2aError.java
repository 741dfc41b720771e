package dev.bellows.a2a;

/**
 * The errors A2A defines, with their JSON-RPC code, HTTP status and the {@code google.rpc.ErrorInfo} reason the
 * HTTP+JSON binding names them by; the JSON-RPC standard errors follow. The HTTP statuses are those the official
 * conformance kit checks (409 for a task that cannot be canceled, 415 for an unsupported content type, 502 for an
 * invalid agent response), where the specification's table says 400, 400 and 500.
 */
public enum A2aError {
    TASK_NOT_FOUND(-32001, 404),
    TASK_NOT_CANCELABLE(-32002, 409),
    PUSH_NOTIFICATION_NOT_SUPPORTED(-32003, 400),
    UNSUPPORTED_OPERATION(-32004, 400),
    CONTENT_TYPE_NOT_SUPPORTED(-32005, 415),
    INVALID_AGENT_RESPONSE(-32006, 502),
    EXTENDED_AGENT_CARD_NOT_CONFIGURED(-32007, 400),
    EXTENSION_SUPPORT_REQUIRED(-32008, 400),
    VERSION_NOT_SUPPORTED(-32009, 400),
    /** JSON-RPC: the body is not JSON. */
    PARSE_ERROR(-32700, 400),
    /** JSON-RPC: not a valid request object. */
    INVALID_REQUEST(-32600, 400),
    /** JSON-RPC: no such method. */
    METHOD_NOT_FOUND(-32601, 404),
    /** JSON-RPC: the parameters are invalid. */
    INVALID_PARAMS(-32602, 400),
    /** JSON-RPC: the server failed. */
    INTERNAL_ERROR(-32603, 500);

    /** The domain of A2A's {@code ErrorInfo} details. */
    public static final String DOMAIN = "a2a-protocol.org";

    private final int code;
    private final int httpStatus;

    A2aError(int code, int httpStatus) {
        this.code = code;
        this.httpStatus = httpStatus;
    }

    /** The JSON-RPC error code. */
    public int code() {
        return code;
    }

    /** The HTTP status of the HTTP+JSON binding. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The {@code ErrorInfo} reason: the error's name without "Error", upper snake case. */
    public String reason() {
        return name();
    }

    /** Whether this is one of A2A's own errors (codes -32001 to -32099) rather than a JSON-RPC standard one. */
    public boolean a2aSpecific() {
        return code >= -32099 && code <= -32001;
    }

    /** The error with this JSON-RPC code, or null. */
    public static A2aError ofCode(int code) {
        for (A2aError e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }
}
