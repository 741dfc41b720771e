package dev.bellows.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.http.HttpResponse;

/**
 * The body handler of every exchange: it keeps the response's body stream, so that an
 * exchange given up on while its headers were arriving (a time-out, an interrupt) has its
 * body closed, whichever of the two comes second (see {@link #abandon()}).
 */
final class ResponseHead implements HttpResponse.BodyHandler<BodyStream> {

    /** What {@link #body} holds once the waiter gave up. */
    private static final BodyStream ABANDONED = new BodyStream();
    private static final VarHandle BODY;

    static {
        try {
            BODY = MethodHandles.lookup().findVarHandle(ResponseHead.class, "body", BodyStream.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The body once the headers came, {@link #ABANDONED} once the waiter gave up; set once. */
    @SuppressWarnings("unused")     // through BODY
    private volatile BodyStream body;

    @Override
    public HttpResponse.BodySubscriber<BodyStream> apply(HttpResponse.ResponseInfo info) {
        BodyStream stream = new BodyStream();
        if (!BODY.compareAndSet(this, (BodyStream) null, stream)) {
            stream.close();     // the waiter gave up (time-out, interrupt) before the headers came
        }
        return stream;
    }

    /**
     * The waiter gives up: a response that comes later is closed by {@link #apply}, one that
     * came in the meantime is closed here. Exactly one of the two sees it.
     */
    void abandon() {
        BodyStream came = (BodyStream) BODY.getAndSet(this, ABANDONED);
        if (came != null && came != ABANDONED) {
            came.close();
        }
    }
}
