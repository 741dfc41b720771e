package dev.bellows.http;

import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One exchange's waits under the client's {@link Watchdog}: first the wait for the response
 * headers (see {@link #awaitHeaders()}), then the body, read in blocks, where a read that
 * waits the idle timeout for its next bytes is aborted (by closing the stream), and at last,
 * once the answer is complete, the body's end (see {@link #finish}). Each wait only writes its
 * deadline; the watchdog's tick expires it. {@link #cancel()} aborts a blocked read from any
 * thread the same way.
 */
final class BodyReader extends Watchdog.Watch implements AutoCloseable {

    // What an expired deadline ends.
    private static final int HEADERS = 0;
    private static final int READING = 1;
    /**
     * The answer is complete: the body's end is waited for (by its reader, or by no one once
     * the reader was cancelled), and the body is closed if it has not come at the idle timeout.
     */
    private static final int ENDING = 2;

    // The header wait's hand-over with the watchdog, which ends it by interrupting the waiter.
    private static final int WAITING = 0;
    private static final int ARRIVED = 1;         // the waiter ended it: no interrupt will come
    private static final int INTERRUPTING = 2;    // the watchdog won: its interrupt is on its way
    private static final int EXPIRED = 3;         // ... and has been delivered

    private static final VarHandle HEADER_STATE;
    private static final VarHandle LET_GO;

    static {
        try {
            HEADER_STATE = MethodHandles.lookup().findVarHandle(BodyReader.class, "headerState", int.class);
            LET_GO = MethodHandles.lookup().findVarHandle(BodyReader.class, "letGo", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final URI uri;
    private final Duration idleTimeout;
    private final long idleNanos;
    private final Watchdog watchdog;
    private final ApiKey key;

    /** The body; null until the headers came. */
    private volatile BodyStream in;
    private volatile int phase = HEADERS;
    private volatile int headerState = WAITING;
    /** The thread waiting for the headers; written before the deadline that publishes it. */
    private Thread waiter;

    private volatile boolean cancelled;
    private volatile boolean timedOut;
    private volatile boolean closed;
    private final AtomicInteger inFlight;
    /** Set once this exchange no longer counts in {@link #inFlight}. */
    @SuppressWarnings("unused")     // through LET_GO
    private volatile boolean letGo;

    /**
     * @param inFlight the client's count of exchanges in flight: this one counts in it until
     *                 it is closed or finished
     */
    BodyReader(URI uri, Duration idleTimeout, Watchdog watchdog, ApiKey key, AtomicInteger inFlight) {
        this.uri = uri;
        this.idleTimeout = idleTimeout;
        this.idleNanos = idleTimeout.toNanos();
        this.watchdog = watchdog;
        this.key = key;
        this.inFlight = inFlight;
        inFlight.incrementAndGet();
    }

    /** This exchange no longer counts in the client's in-flight count; once only. */
    private void letGo() {
        if (LET_GO.compareAndSet(this, false, true)) {
            inFlight.decrementAndGet();
        }
    }

    /**
     * Begins the wait for the response headers on the calling thread, bounded by the idle
     * timeout: when it runs out, the watchdog interrupts this thread (see {@link #headersDone()}).
     *
     * @return false when the client is closed
     */
    boolean awaitHeaders() {
        waiter = Thread.currentThread();
        return watchdog.arm(this, System.nanoTime() + idleNanos);
    }

    /**
     * Ends the wait for the headers, on the thread that began it. False when the watchdog
     * expired it first: the interrupt it sent is cleared then (with any other that came in the
     * same moment), so the thread goes on uninterrupted.
     */
    boolean headersDone() {
        disarm();
        boolean inTime = HEADER_STATE.compareAndSet(this, WAITING, ARRIVED);
        if (!inTime) {
            while (headerState != EXPIRED) {
                Thread.onSpinWait();      // the watchdog is between its compare-and-set and the interrupt
            }
            Thread.interrupted();
        }
        waiter = null;
        return inTime;
    }

    /** The body, once the headers came; a reader closed meanwhile closes it at once. */
    void attach(BodyStream body) {
        in = body;
        phase = READING;
        if (closed || cancelled) {
            abort();
        }
    }

    @Override
    void expired(long deadline) {
        switch (phase) {
            case HEADERS -> {
                if (HEADER_STATE.compareAndSet(this, WAITING, INTERRUPTING)) {
                    waiter.interrupt();
                    headerState = EXPIRED;
                }
            }
            case READING -> {
                if (deadline() == deadline) {       // not a later read that began meanwhile
                    timedOut = true;
                    abort();
                }
            }
            default -> {
                if (deadline() == deadline) {
                    abort();                        // no end within the idle timeout: a broken response
                }
            }
        }
    }

    @Override
    boolean finished() {
        return closed && (phase != ENDING || in.isDone());
    }

    /** Like {@link java.io.InputStream#read(byte[])}: -1 at a clean end of the body. */
    int read(byte[] buffer) throws ProviderException {
        checkState();
        if (!watchdog.arm(this, System.nanoTime() + idleNanos)) {
            abort();
            throw new ProviderException(Kind.CANCELLED, "the stream from " + HttpFailures.display(uri)
                    + " was closed with its client");
        }
        int n;
        IOException failure = null;
        try {
            n = in.read(buffer, 0, buffer.length);
        } catch (IOException e) {
            failure = e;
            n = -1;
        } finally {
            disarm();
        }
        checkState();
        if (Thread.currentThread().isInterrupted()) {
            abort();
            throw new ProviderException(Kind.CANCELLED, "the stream from " + HttpFailures.display(uri)
                    + " was cancelled (thread interrupted)");
        }
        if (failure != null) {
            throw new ProviderException(Kind.STREAM_BROKEN, HttpFailures.redact(key, "the stream from "
                    + HttpFailures.display(uri) + " broke off: " + HttpFailures.describe(failure, uri)), failure);
        }
        return n;
    }

    /** Reads the rest of the body, at most {@code limit} bytes; what arrived before a failure. */
    byte[] readUpTo(int limit) {
        byte[] buffer = new byte[8192];
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try {
            for (int n; out.size() < limit && (n = read(buffer)) >= 0; ) {
                out.write(buffer, 0, Math.min(n, limit - out.size()));
            }
        } catch (ProviderException partial) {
            // keep what arrived: the status already says what failed
        }
        return out.toByteArray();
    }

    /**
     * The answer is complete: what is left of the body (its last bytes, the chunked
     * terminator, HTTP/2's end of stream) is not wanted, only its end, which returns the
     * connection to the client's pool. Waits for that end, dropping the rest as it arrives, so
     * that the caller's next request finds the connection back: a caller that went on before
     * the end (as this did, after at most 500 ms, up to issue 30) makes its next request open
     * another connection while this one is still busy, and the client then keeps more
     * connections than it has requests in flight, which a server with a cap on idle
     * connections closes again. On a loaded machine, with a server that sends a chunked
     * body's terminator as a write of its own (the JDK's, Nagle's algorithm on), that end
     * comes well after the answer. The body is closed (and its connection with it) only when
     * more than {@code limit} bytes follow the answer, or its end has not come within the idle
     * timeout: a response that does not end is broken. {@link #cancel()} ends the wait at once,
     * the body then ending without its reader within the same bound.
     *
     * <p>After this, {@link #close()} and {@link #cancel()} leave the body alone.
     */
    void finish(int limit) {
        if (cancelled || timedOut || closed || in == null) {
            close();
            return;
        }
        phase = ENDING;
        in.discard(limit);
        if (!watchdog.arm(this, System.nanoTime() + idleNanos)) {
            close();                                // the client is closed: so are its connections
            return;
        }
        if (in.awaitEnd() || in.isDone()) {
            disarm();                               // ended (or failed, or closed): nothing left to watch
        }
        // else released by cancel(), or interrupted: the body ends without its reader, and the
        // watchdog still closes it at the idle timeout
        closed = true;
        letGo();
    }

    /** The body; null until the headers came (for tests). */
    BodyStream body() {
        return in;
    }

    void cancel() {
        if (phase >= ENDING) {
            in.release();                           // the answer is complete: nothing to cancel
            return;
        }
        cancelled = true;
        abort();
    }

    /** Throws when cancelled, timed out or closed. */
    void checkState() throws ProviderException {
        if (cancelled) {
            throw new ProviderException(Kind.CANCELLED, "the stream from " + HttpFailures.display(uri) + " was cancelled");
        }
        if (timedOut) {
            throw new ProviderException(Kind.TIMEOUT, "no data from " + HttpFailures.display(uri) + " for "
                    + HttpFailures.seconds(idleTimeout));
        }
        if (closed) {
            throw new ProviderException(Kind.CANCELLED, "the stream from " + HttpFailures.display(uri) + " is closed");
        }
    }

    private void abort() {
        BodyStream body = in;
        if (body != null) {
            body.close();
        }
    }

    /**
     * Ends every wait and closes the body; the watchdog lets go of this reader at its next
     * tick. A body being finished ({@link #finish}) is left to end.
     */
    @Override
    public void close() {
        letGo();
        if (phase >= ENDING) {
            closed = true;
            return;
        }
        closed = true;
        disarm();
        abort();
    }
}
