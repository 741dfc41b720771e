package dev.bellows.http;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.locks.LockSupport;

/**
 * A response body as one reading thread takes it: the JDK client hands over its buffers one
 * list at a time as the reader asks for them (as {@code BodySubscribers.ofInputStream()} does),
 * and {@link #read} blocks until bytes, the end or a failure come.
 *
 * <p>What {@code ofInputStream()} cannot do: let go of a body without closing it. Closing a
 * body before its end cancels it, and the JDK client then closes the HTTP/1.1 connection
 * (HTTP/2 resets the stream), since bytes of the response may still be on their way. After
 * {@link #discard(long)} the rest of the body is dropped as it comes, with no reader and no
 * thread of its own (on the client's I/O thread, as it arrives), so the body still reaches its
 * end and its connection goes back to the client's pool then; only a rest longer than the
 * limit given is cancelled.
 *
 * <p>One thread reads ({@link #read}, {@link #discard}, {@link #awaitEnd}); {@link #close()}
 * and {@link #release()} may come from any thread; the JDK client calls the subscriber methods.
 */
final class BodyStream implements HttpResponse.BodySubscriber<BodyStream> {

    private static final int OPEN = 0;
    private static final int ENDED = 1;      // onComplete: the whole body came
    private static final int FAILED = 2;     // onError
    private static final int CLOSED = 3;     // cancelled by close() before it ended

    private static final VarHandle PENDING;
    private static final VarHandle STATE;
    private static final VarHandle CANCELLED;
    private static final VarHandle DISCARDED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PENDING = lookup.findVarHandle(BodyStream.class, "pending", List.class);
            STATE = lookup.findVarHandle(BodyStream.class, "state", int.class);
            CANCELLED = lookup.findVarHandle(BodyStream.class, "cancelled", boolean.class);
            DISCARDED = lookup.findVarHandle(BodyStream.class, "discarded", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Flow.Subscription subscription;
    /** The list handed over by the client and not yet taken by the reader (one at a time). */
    @SuppressWarnings("unused")     // through PENDING
    private volatile List<ByteBuffer> pending;
    private volatile int state = OPEN;
    private volatile Throwable failure;
    @SuppressWarnings("unused")     // through CANCELLED
    private volatile boolean cancelled;
    /** The thread parked in {@link #read} or {@link #awaitEnd}, or null. */
    private volatile Thread waiter;

    /** Set by {@link #discard}: whatever comes from now on is dropped. */
    private volatile boolean discarding;
    private volatile long discardLimit;
    @SuppressWarnings("unused")     // through DISCARDED
    private volatile long discarded;
    /** Set by {@link #release()}: {@link #awaitEnd} returns without the end. */
    private volatile boolean released;
    // The reader's own: the list it reads from, and where.
    private List<ByteBuffer> list;
    private int index;
    private ByteBuffer current;

    // --- the JDK client's side ---

    @Override
    public CompletionStage<BodyStream> getBody() {
        return CompletableFuture.completedStage(this);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        if (state == CLOSED) {
            cancel(subscription);           // closed while the response was on its way
        } else {
            subscription.request(1);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (discarding) {
            drop(buffers);
            return;
        }
        // One list at a time is asked for, so none is pending now.
        pending = buffers;
        if (discarding) {
            // discard() began meanwhile: the list goes to whichever of the two takes it
            @SuppressWarnings("unchecked")
            List<ByteBuffer> late = (List<ByteBuffer>) PENDING.getAndSet(this, (List<ByteBuffer>) null);
            if (late != null) {
                drop(late);
            }
            return;
        }
        wake();
    }

    @Override
    public void onError(Throwable throwable) {
        failure = throwable;
        STATE.compareAndSet(this, OPEN, FAILED);
        wake();
    }

    @Override
    public void onComplete() {
        STATE.compareAndSet(this, OPEN, ENDED);
        wake();
    }

    // --- the reader's side ---

    /**
     * Like {@link java.io.InputStream#read(byte[], int, int)}: blocks until some bytes came,
     * then returns as many as are at hand; -1 at the body's end.
     *
     * @throws InterruptedIOException when the thread is interrupted while it waits (the body
     *                                is closed then, and the interrupt status kept)
     * @throws IOException            when the body failed or was closed
     */
    int read(byte[] buffer, int offset, int length) throws IOException {
        while (true) {
            ByteBuffer bytes = current;
            if (bytes != null && bytes.hasRemaining()) {
                int n = Math.min(length, bytes.remaining());
                bytes.get(buffer, offset, n);
                return n;
            }
            if (list != null && index < list.size()) {
                current = list.get(index++);
                continue;
            }
            list = null;
            current = null;
            if (takePending()) {
                continue;
            }
            switch (state) {
                case ENDED -> {
                    // the last list may have come just before the end did
                    if (takePending()) {
                        continue;
                    }
                    return -1;
                }
                case FAILED, CLOSED -> throw new IOException("closed", failure);
                default -> park();
            }
            if (Thread.currentThread().isInterrupted()) {
                close();
                throw new InterruptedIOException("interrupted while reading the response body");
            }
        }
    }

    private boolean takePending() {
        @SuppressWarnings("unchecked")
        List<ByteBuffer> next = (List<ByteBuffer>) PENDING.getAndSet(this, (List<ByteBuffer>) null);
        if (next == null) {
            return false;
        }
        list = next;
        index = 0;
        // the next list may come while this one is read
        subscription.request(1);
        return true;
    }

    /**
     * Lets go of the rest of the body: what is at hand and whatever comes later is dropped, on
     * the client's I/O thread as it arrives, so that the body reaches its end without a reader.
     * More than {@code limit} bytes in all closes it (as {@link #close()} does).
     */
    void discard(long limit) {
        discardLimit = limit;
        long atHand = current == null ? 0 : current.remaining();
        for (int i = index; list != null && i < list.size(); i++) {
            atHand += list.get(i).remaining();
        }
        list = null;
        current = null;
        DISCARDED.getAndAdd(this, atHand);
        discarding = true;
        @SuppressWarnings("unchecked")
        List<ByteBuffer> next = (List<ByteBuffer>) PENDING.getAndSet(this, (List<ByteBuffer>) null);
        if (next != null) {
            drop(next);
        } else if (atHand > limit) {
            close();
        }
        if (state == OPEN) {
            // no reader asks for lists any more: everything that comes is taken, and dropped
            subscription.request(Long.MAX_VALUE);
        }
    }

    private void drop(List<ByteBuffer> buffers) {
        long bytes = 0;
        for (ByteBuffer buffer : buffers) {
            bytes += buffer.remaining();
        }
        long total = (long) DISCARDED.getAndAdd(this, bytes) + bytes;
        if (total > discardLimit) {
            close();
        }
    }

    /**
     * Waits until the body ended (or failed, or was closed), or {@link #release()} was called,
     * or the thread is interrupted (the interrupt status is kept); true when it ended.
     */
    boolean awaitEnd() {
        while (state == OPEN && !released && !Thread.currentThread().isInterrupted()) {
            park();
        }
        return state == ENDED;
    }

    private void park() {
        waiter = Thread.currentThread();
        // a hand-over that came before the waiter was published woke nobody: look again
        if (state == OPEN && pending == null && !released) {
            LockSupport.park(this);
        }
        waiter = null;
    }

    private void wake() {
        Thread parked = waiter;
        if (parked != null) {
            LockSupport.unpark(parked);
        }
    }

    // --- any thread ---

    /** Ends a wait in {@link #awaitEnd()} now, without the body's end. */
    void release() {
        released = true;
        wake();
    }

    /** True once the body ended, failed or was closed. */
    boolean isDone() {
        return state != OPEN;
    }

    /** True once the whole body came (and so its HTTP/1.1 connection is back in the pool). */
    boolean hasEnded() {
        return state == ENDED;
    }

    /**
     * Closes the body: one that has not ended is cancelled (so its HTTP/1.1 connection is
     * closed, its HTTP/2 stream reset), and a blocked {@link #read} fails.
     */
    void close() {
        if (STATE.compareAndSet(this, OPEN, CLOSED)) {
            Flow.Subscription s = subscription;
            if (s != null) {
                cancel(s);
            }
        }
        wake();
    }

    private void cancel(Flow.Subscription s) {
        if (CANCELLED.compareAndSet(this, false, true)) {
            s.cancel();
        }
    }
}
