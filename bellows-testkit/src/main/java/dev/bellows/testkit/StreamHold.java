package dev.bellows.testkit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Holds one scripted turn's stream after some of its pieces until the test lets it go on.
 * What a test must see "while the answer still streams" (a screen, a page, an event) is then
 * seen for certain however slow the machine is, and no {@code delay_ms} slows every run to
 * make it likely. The turn's other pieces go out as the script says.
 *
 * <pre>{@code
 * StreamHold pathShown = StreamHold.after(0, 8);    // the first turn, once 8 of its pieces are out
 * try (MockLlmServer server = MockLlmServer.builder(script).hold(pathShown).start()) {
 *     ... the client shows what the 8 pieces said, and nothing of the rest ...
 *     pathShown.release();                            // the rest of the turn streams
 * }
 * }</pre>
 *
 * <p>A piece is one streamed delta as docs/mock-server.md counts them (a native tool call's
 * first piece is its name). A hold holds once: the turn answered again (a repeated script)
 * goes through once it is released. Thread-safe.
 */
public final class StreamHold {

    private final int turn;
    private final int pieces;
    private final CompletableFuture<Void> reached = new CompletableFuture<>();
    private final CompletableFuture<Void> released = new CompletableFuture<>();

    private StreamHold(int turn, int pieces) {
        if (turn < 0) {
            throw new IllegalArgumentException("turn must be 0 or more (the first turn is 0), got " + turn);
        }
        if (pieces < 0) {
            throw new IllegalArgumentException("pieces must be 0 or more, got " + pieces);
        }
        this.turn = turn;
        this.pieces = pieces;
    }

    /** Holds turn {@code turn} (0 is the script's first) once {@code pieces} of its pieces are out. */
    public static StreamHold after(int turn, int pieces) {
        return new StreamHold(turn, pieces);
    }

    /** The index of the held turn in the script. */
    public int turn() {
        return turn;
    }

    /** How many of its pieces go out before the hold. */
    public int pieces() {
        return pieces;
    }

    /** Completes when the stream has reached the hold (its pieces before it are out). */
    public CompletableFuture<Void> reached() {
        return reached.copy();
    }

    /** Lets the held stream go on (or never stops it, when called before it gets there). */
    public void release() {
        released.complete(null);
    }

    /** Whether {@link #release()} was called. */
    public boolean isReleased() {
        return released.isDone();
    }

    /**
     * Called by a mock before it sends piece {@code index} (0-based) of turn {@code turnIndex}
     * (or its end, with {@code index} = the number of pieces): waits while this hold holds there.
     *
     * @param stop completes when the stream is cancelled: the wait ends then too
     * @return false when the wait ended because of {@code stop}
     */
    boolean await(int turnIndex, int index, CompletableFuture<?> stop) throws InterruptedException {
        if (turnIndex != turn || index != pieces) {
            return true;
        }
        reached.complete(null);
        try {
            CompletableFuture.anyOf(released, stop).get();
        } catch (ExecutionException e) {
            // stop failed: the stream ends all the same
        }
        return released.isDone();
    }
}
