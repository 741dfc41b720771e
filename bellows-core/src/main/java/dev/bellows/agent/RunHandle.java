package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatStream;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Flow;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The run's side of an {@link AgentRun}: the event log every reader replays, the listeners,
 * and what cancelling has to reach (the model stream, the thread running tools).
 *
 * <p>The log only grows, under {@link #lock}; readers keep their own position in it, so any
 * number of them read at their own pace and the run never waits for one. The caller's handle
 * is a {@link RunView}, held here weakly: once it is gone, no reader can start, and the log is
 * emptied and no longer kept.
 */
final class RunHandle implements AgentRun {

    private static final System.Logger LOG = System.getLogger(RunHandle.class.getName());

    private final List<AgentListener> listeners;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();      // a new event, a subscriber's request or cancel
    // Only the end: a caller of await() on another thread than the run's (a platform thread, often)
    // is woken once, not at every streamed piece only to find the run still going.
    private final Condition finished = lock.newCondition();
    // guarded by lock; sized for a short run (a few iterations of streamed pieces) so it rarely regrows
    private final List<AgentEvent> log = new ArrayList<>(64);
    private WeakReference<RunView> view;                       // guarded by lock; the caller's handle, once made
    private boolean keepNoEvents;                              // guarded by lock; nobody can read them (runBlocking)
    private AgentResult result;                                // guarded by lock; set with loop_end
    private boolean ended;                                     // guarded by lock; loop_end is being emitted
    private VirtualMachineError crash;                         // guarded by lock; rethrown by await()
    private volatile Runnable ending = () -> { };              // see ending(Runnable)
    private volatile List<WaitingCall> waiting = List.of();    // the calls an interrupted run waits on

    private final Object cancelLock = new Object();
    private volatile boolean cancelled;
    private ChatStream stream;                                 // guarded by cancelLock
    private Thread toolThread;                                 // guarded by cancelLock
    /** The run's body while an awaiting caller may still take it over (default executor only), else null. */
    private volatile RunStart start;
    private final Consumer<AgentEvent> emitter = new Emitter();  // see emitter()

    RunHandle(List<AgentListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    // --- the run's side ---

    /**
     * Runs {@code action} on {@code loop_end}, after the listeners and before {@link #await()}
     * returns (a stored session commits the run's exchange there, so that the turns the
     * listeners add on {@code loop_end} join it, and so that the caller finds them stored).
     * When it throws, the run ends as an error that says so instead. Set before the run starts.
     */
    void ending(Runnable action) {
        ending = Objects.requireNonNull(action, "action");
    }

    /**
     * The run's thread met a {@link VirtualMachineError}: {@link #await()} rethrows it instead
     * of returning a result, so it is never mistaken for how the loop ended. Call before
     * emitting the {@code loop_end} that wakes the readers.
     */
    void crash(VirtualMachineError error) {
        lock.lock();
        try {
            crash = Objects.requireNonNull(error, "error");
        } finally {
            lock.unlock();
        }
    }

    /**
     * Tells the listeners, on the calling thread, then logs the event for the readers: so when
     * {@link #await()} returns, every listener has seen {@code loop_end}. After {@code loop_end}
     * nothing more is emitted: a second end is ignored, so the run always has exactly one.
     * Called by one thread at a time (the run's).
     */
    void emit(AgentEvent event) {
        emitter.accept(event);
    }

    /**
     * {@link #emit} as a consumer, for the readers of the model's answers: the emitting itself,
     * not a method reference around it, because every streamed event takes this path and a
     * frame less on it leaves the JIT room to inline the rest.
     */
    Consumer<AgentEvent> emitter() {
        return emitter;
    }

    /** The body of {@link #emit}. */
    private final class Emitter implements Consumer<AgentEvent> {

        @Override
        public void accept(AgentEvent event) {
            Objects.requireNonNull(event, "event");
            lock.lock();
            try {
                if (ended) {
                    return;
                }
                ended = event instanceof LoopEvent.LoopEnd;
            } finally {
                lock.unlock();
            }
            for (AgentListener listener : listeners) {
                try {
                    listener.onEvent(event);
                } catch (RuntimeException e) {
                    // A listener's bug must not break the run nor hide events from the others; it
                    // is logged so that it is not lost. Errors (OutOfMemoryError...) are not caught.
                    LOG.log(System.Logger.Level.WARNING, () -> "an agent listener (" + listener.getClass().getName()
                            + ") threw on a " + event.type() + " event; the run and the other listeners go on", e);
                }
            }
            AgentEvent logged = event instanceof LoopEvent.LoopEnd end ? runEnding(end) : event;
            lock.lock();
            try {
                if (keepNoEvents) {
                    // a run without a handle: its events are for the listeners alone
                } else if (view == null || view.get() != null) {
                    log.add(logged);
                } else if (!log.isEmpty()) {
                    log.clear();            // nobody can read them any more: see RunView
                }
                if (logged instanceof LoopEvent.LoopEnd end) {
                    result = new AgentResult(end.reason(), end.result(),
                            end.reason() == LoopEndReason.INTERRUPTED ? waiting : List.of());
                    finished.signalAll();
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private LoopEvent.LoopEnd runEnding(LoopEvent.LoopEnd end) {
        try {
            ending.run();
            return end;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, () -> "the run ended (" + end.reason().wireName()
                    + ") but what ends it failed; the run ends as an error", e);
            return new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the run ended (" + end.reason().wireName()
                    + ") but its conversation could not be stored: " + e.getMessage());
        }
    }

    /** The calls the run stops at; set before its {@code interrupted} end, which carries them. */
    void waiting(List<WaitingCall> calls) {
        waiting = List.copyOf(calls);
    }

    List<WaitingCall> waiting() {
        return waiting;
    }

    /** A run that nobody will read (no handle is made): its events are not kept. Call before it starts. */
    void keepNoEvents() {
        lock.lock();
        try {
            keepNoEvents = true;
        } finally {
            lock.unlock();
        }
    }

    /** How many events the log holds now (for tests of what a run keeps). */
    int keptEvents() {
        lock.lock();
        try {
            return log.size();
        } finally {
            lock.unlock();
        }
    }

    boolean isCancelled() {
        return cancelled;
    }

    /** Why the run was cut short ({@link #cutShort}), or null. */
    private volatile String cutShort;

    /**
     * Ends the run as {@link #cancel()} does (its model stream cancelled, its tools interrupted),
     * for {@code why}, which its end then says ({@link #cutShortBy()}); nothing when it is
     * cancelled or done already.
     */
    void cutShort(String why) {
        synchronized (cancelLock) {
            if (cancelled) {
                return;
            }
            cutShort = why;
        }
        cancel();
    }

    /** Why the run was cut short, or null when it was not. */
    String cutShortBy() {
        return cutShort;
    }

    /** The model stream now being read; cancelled at once if the run already is. */
    void streamStarted(ChatStream current) {
        boolean cancelNow;
        synchronized (cancelLock) {
            stream = current;
            cancelNow = cancelled;
        }
        if (cancelNow) {
            current.cancel();
        }
    }

    void streamEnded() {
        synchronized (cancelLock) {
            stream = null;
        }
    }

    /**
     * Runs tools on the calling thread so that {@link #cancel()} can interrupt them; an
     * interrupt that cancelling delivered is cleared afterwards, so it cannot leak into
     * listeners or the next model call.
     */
    <T> T runTools(Supplier<T> tools) {
        synchronized (cancelLock) {
            toolThread = Thread.currentThread();
        }
        try {
            return tools.get();
        } finally {
            synchronized (cancelLock) {
                toolThread = null;
            }
            if (cancelled) {
                Thread.interrupted();
            }
        }
    }

    /**
     * Lets a caller of {@link #await()} run {@code start} on its own thread if the executor's
     * thread has not begun it yet. Only for the agent's own executor (a new virtual thread): a
     * caller's executor is where the caller wants its runs to go on.
     */
    void offer(RunStart start) {
        this.start = start;
    }

    // --- AgentRun ---

    @Override
    public void cancel() {
        if (isDone()) {
            return;
        }
        ChatStream current;
        synchronized (cancelLock) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            current = stream;
            if (toolThread != null) {
                toolThread.interrupt(); // under the lock: never after runTools has returned
            }
        }
        if (current != null) {
            current.cancel();
        }
    }

    @Override
    public boolean isDone() {
        lock.lock();
        try {
            return result != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public AgentResult await() {
        RunStart pending = start;
        if (pending != null) {
            start = null;
            // Not with an interrupt pending: that is for this wait (CancellationException below), not for the run.
            Runnable body = Thread.currentThread().isInterrupted() ? null : pending.claim();
            if (body != null) {
                body.run();             // ends with loop_end, so the wait below returns at once
            }
        }
        lock.lock();
        try {
            while (result == null) {
                awaitChange(finished);
            }
            if (crash != null) {
                throw crash;
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Optional<AgentResult> await(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (result == null) {
                if (nanos <= 0) {
                    return Optional.empty();
                }
                nanos = finished.awaitNanos(nanos);
            }
            if (crash != null) {
                throw crash;
            }
            return Optional.of(result);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Iterator<AgentEvent> iterator() {
        return new Iterator<>() {
            private int next;
            /**
             * The log once this iterator has seen the run end, else null: it changes no more
             * then (an event after loop_end is dropped), so the rest is read without the lock, a
             * lock less per event for the callers that read a run after {@code await}.
             */
            private List<AgentEvent> complete;

            @Override
            public boolean hasNext() {
                if (complete != null) {
                    return next < complete.size();
                }
                lock.lock();
                try {
                    while (next >= log.size() && result == null) {
                        awaitChange(changed);
                    }
                    if (result != null) {
                        complete = log;     // read under the lock that saw the end: every event is visible
                    }
                    return next < log.size();
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public AgentEvent next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("the run has ended: loop_end was the last event");
                }
                if (complete != null) {
                    return complete.get(next++);
                }
                lock.lock();
                try {
                    return log.get(next++);
                } finally {
                    lock.unlock();
                }
            }
        };
    }

    @Override
    public Stream<AgentEvent> events() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    @Override
    public Flow.Publisher<AgentEvent> publisher() {
        return subscriber -> {
            Objects.requireNonNull(subscriber, "subscriber");
            subscribe(subscriber, this);
        };
    }

    /** Delivers to {@code subscriber} on a thread of its own, keeping {@code owner} reachable meanwhile. */
    void subscribe(Flow.Subscriber<? super AgentEvent> subscriber, Object owner) {
        EventSubscription subscription = new EventSubscription(subscriber, owner);
        Thread.ofVirtual().name("bellows-agent-subscriber").start(subscription::deliver);
    }

    /**
     * The caller's handle of this run. The run holds it weakly: once the caller and every reader
     * have let go of it, the events are no longer kept (listeners still hear every one).
     */
    AgentRun view() {
        RunView made = new RunView(this);
        lock.lock();
        try {
            view = new WeakReference<>(made);
        } finally {
            lock.unlock();
        }
        return made;
    }

    /** Called with the lock held. */
    private static void awaitChange(Condition condition) {
        try {
            condition.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the agent run");
        }
    }

    /** One subscriber's position in the log and its demand; delivers on its own thread. */
    private final class EventSubscription implements Flow.Subscription {

        private final Flow.Subscriber<? super AgentEvent> subscriber;
        @SuppressWarnings("unused")     // keeps the caller's handle, and so the events, reachable while delivering
        private final Object owner;
        private long demand;                // guarded by lock
        private boolean stopped;            // guarded by lock
        private IllegalArgumentException badRequest; // guarded by lock

        EventSubscription(Flow.Subscriber<? super AgentEvent> subscriber, Object owner) {
            this.subscriber = subscriber;
            this.owner = owner;
        }

        @Override
        public void request(long n) {
            lock.lock();
            try {
                if (n <= 0) {
                    if (badRequest == null) {
                        badRequest = new IllegalArgumentException(
                                "request(" + n + "): a subscriber must request a positive number of events (rule 3.9)");
                    }
                } else {
                    demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void cancel() {
            lock.lock();
            try {
                stopped = true;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void deliver() {
            try {
                subscriber.onSubscribe(this);
                int next = 0;
                while (true) {
                    AgentEvent event = null;
                    IllegalArgumentException error = null;
                    lock.lock();
                    try {
                        while (!stopped && badRequest == null && !(demand > 0 && next < log.size())
                                && !(result != null && next == log.size())) {
                            changed.await();
                        }
                        if (stopped) {
                            return;
                        }
                        if (badRequest != null) {
                            stopped = true;
                            error = badRequest;
                        } else if (demand > 0 && next < log.size()) {
                            event = log.get(next++);
                            demand--;
                        } else {
                            stopped = true;
                        }
                    } finally {
                        lock.unlock();
                    }
                    if (error != null) {
                        subscriber.onError(error);
                        return;
                    }
                    if (event == null) {
                        subscriber.onComplete();
                        return;
                    }
                    subscriber.onNext(event);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                // A subscriber that throws breaks its own contract (rule 2.13): stop delivering to it.
                cancel();
            }
        }
    }
}
