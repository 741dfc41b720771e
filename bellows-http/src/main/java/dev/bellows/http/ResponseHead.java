package dev.bellows.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The body handler of every exchange: it keeps the response's body stream, so that an
 * exchange given up on while its headers were arriving (a time-out, an interrupt) has its
 * body closed, whichever of the two comes second (see {@link #abandon()}).
 */
final class ResponseHead implements HttpResponse.BodyHandler<InputStream> {

    /** What arrived: the status line, the headers and the body as a blocking stream. */
    record Head(int statusCode, HttpHeaders headers, InputStream body) {
    }

    private final CompletableFuture<Head> head = new CompletableFuture<>();

    @Override
    public HttpResponse.BodySubscriber<InputStream> apply(HttpResponse.ResponseInfo info) {
        HttpResponse.BodySubscriber<InputStream> subscriber = HttpResponse.BodySubscribers.ofInputStream();
        // ofInputStream's body is there at once: the stream that the subscriber fills
        InputStream body = subscriber.getBody().toCompletableFuture().join();
        if (!head.complete(new Head(info.statusCode(), info.headers(), body))) {
            close(body);        // the waiter gave up (time-out, interrupt) before the headers came
        }
        return subscriber;
    }

    /** What the waiting thread waits on. */
    CompletableFuture<Head> head() {
        return head;
    }

    /** The exchange failed before its headers (connection refused, reset...). */
    void failed(Throwable cause) {
        head.completeExceptionally(cause);
    }

    /**
     * The waiter gives up: a response that comes later is closed by {@link #apply}, one that
     * came in the meantime is closed here. Exactly one of the two sees it.
     */
    void abandon() {
        if (!head.cancel(false) && !head.isCompletedExceptionally()) {
            close(head.join().body());
        }
    }

    private static void close(InputStream body) {
        try {
            body.close();
        } catch (IOException | RuntimeException ignored) {
            // closing is all we wanted
        }
    }
}
