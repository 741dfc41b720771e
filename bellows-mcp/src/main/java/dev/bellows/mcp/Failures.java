package dev.bellows.mcp;

import dev.bellows.mcp.auth.OAuthException;
import dev.bellows.mcp.auth.OAuthSecret;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns what the SDK and the JDK throw into one line a user (or a model) can act on:
 * "could not connect to http://127.0.0.1:9/mcp: connection refused", "HTTP 401 from ...",
 * "the server answered with error -32602: Unknown tool". Never a stack trace.
 */
final class Failures {

    private static final Pattern STATUS = Pattern.compile("(?i)(?:status(?: code)?[ :=]*)(\\d{3})");

    private Failures() {
    }

    static String describe(Throwable failure, McpServerConfig config) {
        return OAuthSecret.redact(describeRaw(failure, config));
    }

    private static String describeRaw(Throwable failure, McpServerConfig config) {
        Throwable t = unwrap(failure);
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof OAuthException auth) {
                return auth.getMessage(); // says what failed, in one line, without secrets
            }
        }
        String where = config instanceof McpServerConfig.StreamableHttp http
                ? http.url().getScheme() + "://" + http.url().getRawAuthority() + http.url().getRawPath()
                : null;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof McpError error && error.getJsonRpcError() != null
                    && StreamableHttpTransport.TRANSPORT_FAILURE.equals(error.getJsonRpcError().data())) {
                return oneLine(error.getJsonRpcError().message()); // Bellows' own words: the server said nothing
            }
            if (c instanceof McpError error && error.getJsonRpcError() != null) {
                return "the server answered with error " + error.getJsonRpcError().code() + ": "
                        + oneLine(error.getJsonRpcError().message());
            }
            if (c instanceof ConnectException || c instanceof UnresolvedAddressException) {
                return "could not connect" + (where == null ? "" : " to " + where) + ": "
                        + (c instanceof UnresolvedAddressException ? "unknown host" : "connection refused");
            }
            if ((c instanceof McpTransportException || c instanceof McpTransportSessionNotFoundException)
                    && c.getMessage() != null && c.getMessage().startsWith("HTTP ")) {
                return c.getMessage(); // the transport's own "HTTP 404 from URL: body" says it all
            }
            if (c instanceof HttpConnectTimeoutException) {
                return "could not connect" + (where == null ? "" : " to " + where) + ": timed out";
            }
            if (c instanceof HttpTimeoutException) {
                return "no answer" + (where == null ? "" : " from " + where) + ": timed out";
            }
        }
        String message = messages(t);
        if (where != null) {
            Matcher status = STATUS.matcher(message);
            if (status.find()) {
                return "HTTP " + status.group(1) + " from " + where + ": " + message;
            }
        }
        return message;
    }

    /**
     * Whether starting the server again cannot help: it refused the session (a JSON-RPC error
     * to {@code initialize}) or answered with an HTTP client error other than 408 and 429
     * (a wrong path, a missing token). Refused connections, timeouts and 5xx may pass.
     */
    static boolean permanent(Throwable failure) {
        for (Throwable c = failure == null ? null : unwrap(failure); c != null; c = c.getCause()) {
            if (c instanceof OAuthException auth) {
                return !auth.retryable(); // a refused or impossible login: another start would repeat it
            }
            if (c instanceof McpError error && error.getJsonRpcError() != null) {
                return true;
            }
            if (c instanceof StreamableHttpTransport.HttpStatusException http) {
                int status = http.status();
                return status >= 400 && status < 500 && status != 408 && status != 429;
            }
        }
        return false;
    }

    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException
                || t.getClass().getName().startsWith("reactor.core.Exceptions")) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The messages of the exception and its causes, without repeats, on one line. */
    private static String messages(Throwable t) {
        StringBuilder out = new StringBuilder();
        for (Throwable c = t; c != null && out.length() < 500; c = c.getCause()) {
            String message = c.getMessage();
            String text = message == null || message.isBlank()
                    ? (c instanceof IOException ? c.getClass().getSimpleName() : null)
                    : oneLine(message);
            if (text != null && !out.toString().contains(text)) {
                if (!out.isEmpty()) {
                    out.append(": ");
                }
                out.append(text);
            }
        }
        return out.isEmpty() ? t.getClass().getSimpleName() : out.toString();
    }

    static String oneLine(String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
}
