package dev.bellows.agent;

/**
 * An interceptor threw (or returned null): the run ends as an {@code error} whose result is
 * this message, which names the interceptor's class. Unchecked, so that it passes through
 * the provider's retries and the tool batch unchanged.
 */
final class InterceptorFailure extends RuntimeException {

    InterceptorFailure(String message, Throwable cause) {
        super(message, cause);
    }

    /** {@code model interceptor com.acme.Tracing failed: IllegalStateException: boom}. */
    static InterceptorFailure of(String kind, Object interceptor, RuntimeException e) {
        if (e instanceof InterceptorFailure inner) {
            return inner;           // an inner interceptor's, passed on: it names the one that failed
        }
        return new InterceptorFailure(kind + " " + interceptor.getClass().getName() + " failed: "
                + LoopEnds.describe(e), e);
    }

    static InterceptorFailure returnedNull(String kind, Object interceptor) {
        return new InterceptorFailure(kind + " " + interceptor.getClass().getName() + " returned null", null);
    }
}
