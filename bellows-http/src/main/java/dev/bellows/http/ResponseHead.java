package dev.bellows.http;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.http.HttpResponse;

/**
 * The body handler of every exchange: it keeps the response's body stream, so that an
 * exchange given up on while its headers were arriving (a time-out, an interrupt) has its
 * body closed, whichever of the two comes second (see {@link #abandon()}).
 */
final class ResponseHead implements HttpResponse.BodyHandler<InputStream> {

    /** What {@link #body} holds once the waiter gave up. */
    private static final InputStream ABANDONED = InputStream.nullInputStream();
    private static final VarHandle BODY;

    static {
        try {
            BODY = MethodHandles.lookup().findVarHandle(ResponseHead.class, "body", InputStream.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The body once the headers came, {@link #ABANDONED} once the waiter gave up; set once. */
    @SuppressWarnings("unused")     // through BODY
    private volatile InputStream body;

    @Override
    public HttpResponse.BodySubscriber<InputStream> apply(HttpResponse.ResponseInfo info) {
        HttpResponse.BodySubscriber<InputStream> subscriber = HttpResponse.BodySubscribers.ofInputStream();
        // ofInputStream's body is there at once: the stream that the subscriber fills
        InputStream stream = subscriber.getBody().toCompletableFuture().join();
        if (!BODY.compareAndSet(this, (InputStream) null, stream)) {
            close(stream);      // the waiter gave up (time-out, interrupt) before the headers came
        }
        return subscriber;
    }

    /**
     * The waiter gives up: a response that comes later is closed by {@link #apply}, one that
     * came in the meantime is closed here. Exactly one of the two sees it.
     */
    void abandon() {
        InputStream came = (InputStream) BODY.getAndSet(this, ABANDONED);
        if (came != null && came != ABANDONED) {
            close(came);
        }
    }

    private static void close(InputStream stream) {
        try {
            stream.close();
        } catch (IOException | RuntimeException ignored) {
            // closing is all we wanted
        }
    }
}
