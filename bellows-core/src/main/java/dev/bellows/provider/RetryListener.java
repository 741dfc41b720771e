package dev.bellows.provider;

/**
 * Told about each retry of a {@link RetryingProvider}'s stream, on the consuming thread,
 * before the wait and before any chunk of the new attempt.
 */
@FunctionalInterface
public interface RetryListener {

    /** A listener that ignores every notice. */
    RetryListener NONE = notice -> { };

    void onRetry(RetryNotice notice);
}
