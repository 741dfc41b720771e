package dev.bellows.temporal;

import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.WaitingCall;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.temporal.internal.Follower;
import dev.bellows.tool.ToolCall;
import io.temporal.client.WorkflowClient;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.RequestCancelWorkflowExecutionRequest;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** A durable run as its follower sees it: the events as they arrive, on a virtual thread of its own. */
final class FollowedRun implements AgentRun {

    private static final System.Logger LOG = System.getLogger(FollowedRun.class.getName());

    private final WorkflowClient client;
    private final String workflowId;
    private final List<AgentListener> listeners;
    private final Consumer<FollowNotice> notices;
    private final Duration frontendPatience;
    private final List<AgentEvent> log = new ArrayList<>();    // guarded by this
    private AgentResult result;                                 // guarded by this
    private final List<WaitingCall> waiting = new ArrayList<>(); // guarded by this: since the last loop_start
    private volatile boolean stopped;

    FollowedRun(WorkflowClient client, String workflowId, long from, List<AgentListener> listeners,
                Consumer<FollowNotice> notices, Duration frontendPatience) {
        this.client = client;
        this.frontendPatience = frontendPatience;
        this.workflowId = workflowId;
        this.listeners = listeners;
        this.notices = notices;
        Thread.ofVirtual().name("bellows-follow-" + workflowId).start(() -> follow(from));
    }

    /** The run's workflow id. */
    String workflowId() {
        return workflowId;
    }

    private void follow(long from) {
        LoopEvent.LoopEnd end;
        try {
            end = new Follower(client, workflowId, from, this::deliver, this::notice, frontendPatience).follow(() -> stopped)
                    .orElse(new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled"));
        } catch (InterruptedException e) {
            end = new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled");
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "following " + workflowId + " failed", e);
            end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the run " + workflowId + " could not be followed: "
                    + e.getMessage());
            deliver(end);
        }
        synchronized (this) {
            result = end.reason() == LoopEndReason.INTERRUPTED
                    ? new AgentResult(end.reason(), end.result(), List.copyOf(waiting))
                    : new AgentResult(end.reason(), end.result());
            notifyAll();
        }
    }

    private void notice(FollowNotice notice) {
        try {
            notices.accept(notice);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a notice listener threw; following goes on", e);
        }
    }

    private void deliver(AgentEvent event) {
        for (AgentListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "an agent listener threw; the others go on", e);
            }
        }
        synchronized (this) {
            log.add(event);
            if (event instanceof LoopEvent.LoopStart) {
                waiting.clear();
            } else if (event instanceof LoopEvent.ApprovalRequired call) {
                waiting.add(new WaitingCall(call.id(), new ToolCall(call.serverName(), call.toolName(), call.arguments()),
                        WaitingCall.Kind.APPROVAL));
            }
            notifyAll();
        }
    }

    /**
     * Asks the workflow to cancel, on a thread of its own, and returns at once: the loop ends
     * {@code cancelled} once its calls have stopped. When the frontend cannot be told within
     * {@link #CANCEL_DEADLINE} (it is gone), the following stops, ending {@code cancelled}: a
     * signal handler that called this used to wait out the client's minute of retries.
     */
    @Override
    public void cancel() {
        if (isDone()) {
            return;
        }
        Thread.ofVirtual().name("bellows-cancel-" + workflowId).start(() -> {
            try {
                client.getWorkflowServiceStubs().blockingStub()
                        .withDeadlineAfter(CANCEL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                        .requestCancelWorkflowExecution(RequestCancelWorkflowExecutionRequest.newBuilder()
                                .setNamespace(client.getOptions().getNamespace())
                                .setWorkflowExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                                .setIdentity(client.getOptions().getIdentity())
                                .setRequestId(UUID.randomUUID().toString())
                                .build());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "cancelling " + workflowId + " failed", e);
                stopped = true;
            }
        });
    }

    /** How long a cancellation may take to reach the frontend. */
    private static final Duration CANCEL_DEADLINE = Duration.ofSeconds(5);

    @Override
    public synchronized boolean isDone() {
        return result != null;
    }

    @Override
    public synchronized AgentResult await() {
        while (result == null) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted while waiting for the durable run " + workflowId);
            }
        }
        return result;
    }

    @Override
    public synchronized Optional<AgentResult> await(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (result == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return Optional.of(result);
    }

    @Override
    public Iterator<AgentEvent> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                synchronized (FollowedRun.this) {
                    while (next >= log.size() && result == null) {
                        try {
                            FollowedRun.this.wait();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new CancellationException("interrupted while waiting for the durable run");
                        }
                    }
                    return next < log.size();
                }
            }

            @Override
            public AgentEvent next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("the run has ended: loop_end was the last event");
                }
                synchronized (FollowedRun.this) {
                    return log.get(next++);
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
            SubmissionPublisher<AgentEvent> publisher = new SubmissionPublisher<>();
            publisher.subscribe(subscriber);
            Thread.ofVirtual().start(() -> {
                try (publisher) {
                    for (AgentEvent event : this) {
                        publisher.submit(event);
                    }
                }
            });
        };
    }
}
