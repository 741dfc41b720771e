package dev.bellows.mcp;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Where one MCP server stands: {@link McpToolSource#status()}, {@link McpServers#statuses()}, and
 * every change told to {@link McpListener#statusChanged}. {@link #describe()} says it in one
 * line for a user ({@code "up"}, {@code "retrying in 2 s (attempt 1 of 5 failed): ..."},
 * {@code "failed after 5 attempts: ..."}). Reasons never hold a server's environment, arguments
 * or headers.
 */
public sealed interface McpServerStatus {

    /** One line for a user. */
    String describe();

    /** Whether the server runs and its tools can be called. */
    default boolean isUp() {
        return this instanceof Up;
    }

    /** Whether nothing more will happen on its own: up, given up on, or closed. */
    default boolean isSettled() {
        return this instanceof Up || this instanceof Failed || this instanceof Closed;
    }

    /** Not asked to start yet. */
    record NotStarted() implements McpServerStatus {
        @Override
        public String describe() {
            return "not started";
        }
    }

    /**
     * Starting: launching, initializing, listing its tools.
     *
     * @param attempt     1 for the first start, 2 for the first retry, ...
     * @param maxAttempts the restart policy's bound
     */
    record Starting(int attempt, int maxAttempts) implements McpServerStatus {
        @Override
        public String describe() {
            return attempt == 1 ? "starting" : "starting (attempt " + attempt + " of " + maxAttempts + ")";
        }
    }

    /** Running; its tools can be called. */
    record Up() implements McpServerStatus {
        @Override
        public String describe() {
            return "up";
        }
    }

    /**
     * Never started yet: the last start failed, and the next one is due at {@code nextAttempt}.
     *
     * @param reason         why the last start failed
     * @param failedAttempts starts that failed so far, in a row
     * @param maxAttempts    the restart policy's bound
     * @param nextAttempt    when the next start begins
     */
    record Retrying(String reason, int failedAttempts, int maxAttempts, Instant nextAttempt) implements McpServerStatus {

        public Retrying {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(nextAttempt, "nextAttempt");
        }

        @Override
        public String describe() {
            return next() + ": " + reason;
        }

        /** "retrying in 2 s (attempt 1 of 5 failed)". */
        String next() {
            return "retrying " + in(nextAttempt) + " (attempt " + failedAttempts + " of " + maxAttempts + " failed)";
        }
    }

    /**
     * It ran, then stopped on its own (crashed, was killed) or could not be started again;
     * the next call to one of its tools starts it, not before {@code restartAt}.
     */
    record Stopped(String reason, Instant restartAt) implements McpServerStatus {

        public Stopped {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(restartAt, "restartAt");
        }

        @Override
        public String describe() {
            String when = in(restartAt);
            return "stopped: " + reason + "; it starts again on the next call"
                    + (when.equals("now") ? "" : " " + when.replace("in ", "after "));
        }
    }

    /**
     * Given up on: the start failed in a way another try cannot mend, or as often as the
     * restart policy allows. Its tools answer with this reason.
     *
     * @param attempts the starts that failed in a row
     */
    record Failed(String reason, int attempts) implements McpServerStatus {

        public Failed {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String describe() {
            return (attempts > 1 ? "failed after " + attempts + " attempts: " : "failed: ") + reason;
        }
    }

    /** Closed by its owner; every process it started is stopped. */
    record Closed() implements McpServerStatus {
        @Override
        public String describe() {
            return "closed";
        }
    }

    /** "in 3 s", or "now" once the time has come; whole seconds, rounded up. */
    private static String in(Instant when) {
        long millis = Duration.between(Instant.now(), when).toMillis();
        return millis <= 0 ? "now" : "in " + ((millis + 999) / 1000) + " s";
    }
}
