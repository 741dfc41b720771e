package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The events a run's tool calls pass on from their sub-agents ({@link CallScope#emit}), told to
 * the run one at a time and in the order they came, on a virtual thread that lives while there
 * are some (or on the run's {@linkplain AgentBuilder#executor executor}, when one was given: an
 * executor that runs a task on the calling thread tells each event there, before its call goes
 * on, as a driver with threads of its own needs it): calls running side by side never call a
 * listener at once, and none of them waits for a listener (a slow one holds up only the events
 * behind it). The run's thread
 * {@linkplain #flush() flushes} them before it goes on, so they all come before the
 * {@code tool_result} of their call. The lock guards the queue only: no listener runs under it.
 */
final class ForwardedEvents {

    private final Consumer<AgentEvent> emit;
    private final java.util.concurrent.Executor executor;     // null: a virtual thread of its own
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final ArrayDeque<AgentEvent> queue = new ArrayDeque<>();
    private boolean draining;       // guarded by lock: a thread tells the queue's events

    /** @param executor where the events are told; null for a virtual thread of their own */
    ForwardedEvents(Consumer<AgentEvent> emit, java.util.concurrent.Executor executor) {
        this.emit = emit;
        this.executor = executor;
    }

    void offer(AgentEvent event) {
        lock.lock();
        try {
            queue.add(event);
            if (draining) {
                return;
            }
            draining = true;
        } finally {
            lock.unlock();
        }
        if (executor == null) {
            Thread.ofVirtual().name("bellows-forwarded-events").start(this::drain);
        } else {
            executor.execute(this::drain);
        }
    }

    private void drain() {
        while (true) {
            AgentEvent next;
            lock.lock();
            try {
                next = queue.poll();
                if (next == null) {
                    draining = false;
                    idle.signalAll();
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                emit.accept(next);
            } catch (RuntimeException e) {
                // the run's emit keeps listeners' failures to itself; anything else must not stop the queue
            }
        }
    }

    /** Waits until every event offered so far has been told. */
    void flush() {
        lock.lock();
        try {
            while (draining) {
                idle.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }
}
