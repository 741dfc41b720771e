package dev.bellows.http;

import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads a response body in blocks under an idle watchdog: a read that waits the idle timeout
 * for its next bytes is aborted (by closing the stream). One scheduled check serves all
 * reads: it looks at when the read in progress began and checks again when that read would
 * reach the timeout. Nothing polls or spins.
 * {@link #cancel()} aborts a blocked read from any thread the same way.
 */
final class BodyReader implements AutoCloseable {

    private final InputStream in;
    private final URI uri;
    private final Duration idleTimeout;
    private final ScheduledExecutorService watchdog;
    private final ApiKey key;

    /** {@link #readingSince} when no read is in progress. */
    private static final long NOT_READING = Long.MIN_VALUE;

    // Made once: a method reference per use would be a new object each time.
    private final Runnable idleCheck = this::checkIdle;
    private final Runnable drainAlarm = this::abort;
    private final long idleNanos;

    /** When the read in progress began ({@link System#nanoTime()}), or {@link #NOT_READING}. */
    private volatile long readingSince = NOT_READING;
    /** Whether an idle check is scheduled; at most one is, for the reader's whole life. */
    private final AtomicBoolean armed = new AtomicBoolean();
    private volatile ScheduledFuture<?> alarm;

    private volatile boolean cancelled;
    private volatile boolean timedOut;
    private volatile boolean closed;

    BodyReader(InputStream in, URI uri, Duration idleTimeout, ScheduledExecutorService watchdog, ApiKey key) {
        this.in = in;
        this.uri = uri;
        this.idleTimeout = idleTimeout;
        this.idleNanos = idleTimeout.toNanos();
        this.watchdog = watchdog;
        this.key = key;
    }

    /** Like {@link InputStream#read(byte[])}: -1 at a clean end of the body. */
    int read(byte[] buffer) throws ProviderException {
        checkState();
        readingSince = System.nanoTime();
        try {
            arm();
        } catch (RejectedExecutionException clientClosed) {
            readingSince = NOT_READING;
            abort();
            throw new ProviderException(Kind.CANCELLED, "the stream from " + HttpFailures.display(uri)
                    + " was closed with its client");
        }
        int n;
        IOException failure = null;
        try {
            n = in.read(buffer);
        } catch (IOException e) {
            failure = e;
            n = -1;
        } finally {
            readingSince = NOT_READING;
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

    /**
     * Schedules the idle check unless one is scheduled. One check serves every read: a task
     * scheduled and cancelled around each read cost an object and, as it became the watchdog's
     * next task, a wake-up of the watchdog's thread per read.
     */
    private void arm() {
        if (!armed.get() && armed.compareAndSet(false, true)) {
            alarm = watchdog.schedule(idleCheck, idleNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * On the watchdog's thread: aborts a read that has waited the idle timeout; else checks
     * again when the read in progress would reach it. With no read in progress it stops, and
     * the next read schedules it again.
     */
    private void checkIdle() {
        if (closed || cancelled || timedOut) {
            return;
        }
        long since = readingSince;
        if (since == NOT_READING) {
            armed.set(false);
            // A read that began after 'since' was read may have found the check still armed.
            if (readingSince != NOT_READING) {
                rearm();
            }
            return;
        }
        long waited = System.nanoTime() - since;
        if (waited >= idleNanos) {
            idle();
            return;
        }
        try {
            alarm = watchdog.schedule(idleCheck, idleNanos - waited, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException clientClosed) {
            // the client is closed: its reads fail on their own
        }
    }

    private void rearm() {
        try {
            arm();
        } catch (RejectedExecutionException clientClosed) {
            // the client is closed: its reads fail on their own
        }
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
     * Reads and drops the rest of the body, up to {@code limit} bytes and {@code wait} in all,
     * so that an ended answer leaves the connection reusable; gives up quietly (the caller
     * closes the body next, dropping the connection) when the body is longer, slower, broken,
     * or this reader was cancelled or closed.
     *
     * @param buffer where the dropped bytes are read to (the caller's, which it no longer needs)
     */
    void drain(byte[] buffer, int limit, Duration wait) {
        if (cancelled || timedOut || closed) {
            return;
        }
        ScheduledFuture<?> alarm;
        try {
            alarm = watchdog.schedule(drainAlarm, wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException clientClosed) {
            return;
        }
        try {
            long left = limit;
            for (int n; left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0; ) {
                left -= n;
            }
        } catch (IOException e) {
            // broken or aborted by the alarm: closing follows either way
        } finally {
            alarm.cancel(false);
        }
    }

    void cancel() {
        cancelled = true;
        abort();
    }

    private void idle() {
        timedOut = true;
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
        try {
            in.close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }

    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> scheduled = alarm;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        abort();
    }
}
