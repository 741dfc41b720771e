package dev.bellows.tool;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * What a running tool may know about its call: which server and name it was called as, and
 * whether the run has been cancelled (a long tool should check and stop early).
 *
 * @param serverName the server the call named ({@code local} for local tools)
 * @param toolName   the tool name the call named
 * @param cancelled  true once the run is cancelled
 */
public record ToolContext(String serverName, String toolName, BooleanSupplier cancelled) {

    public ToolContext {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(cancelled, "cancelled");
    }

    /** A context that is never cancelled, for tests and one-off calls. */
    public static ToolContext of(String serverName, String toolName) {
        return new ToolContext(serverName, toolName, () -> false);
    }

    public boolean isCancelled() {
        return cancelled.getAsBoolean();
    }
}
