package dev.bellows.server;

import dev.bellows.agent.AgentRun;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Hands a run's events to the response as they come, and notices a client that went away even
 * while nothing happens (a long tool, a slow model): when nothing was written for the
 * heartbeat interval, a heartbeat is written, and a write that fails cancels the run (its model
 * call and its tools). TCP tells a closed connection on the second write after it, so a client
 * that leaves is noticed within about two intervals.
 *
 * <p>The run never waits for the client: its events queue here while a slow client reads.
 */
final class RunPump {

    /** What the response does with each event, and how it keeps the connection alive. */
    interface Output {
        void event(AgentEvent event) throws IOException;

        void heartbeat() throws IOException;

        /** Nanoseconds since anything was written. */
        long idleNanos();
    }

    private static final AgentEvent END = new LoopEvent.LoopStart("");

    private RunPump() {
    }

    /**
     * Pumps until {@code loop_end} has been written, or the client went away; either way returns
     * only once the run has ended (so its conversation is stored before the thread is free).
     *
     * @return true when the client stayed to the end
     */
    static boolean pump(AgentRun run, Output output, Duration heartbeat) {
        BlockingQueue<AgentEvent> queue = new LinkedBlockingQueue<>();
        run.publisher().subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(AgentEvent item) {
                queue.add(item);
            }

            @Override
            public void onError(Throwable throwable) {
                queue.add(END);
            }

            @Override
            public void onComplete() {
                queue.add(END);
            }
        });
        long interval = heartbeat.toNanos();
        boolean stayed = true;
        try {
            while (true) {
                long wait = interval - output.idleNanos();
                AgentEvent event = wait <= 0 ? queue.poll() : queue.poll(wait, TimeUnit.NANOSECONDS);
                if (event == null) {
                    if (output.idleNanos() >= interval) {
                        output.heartbeat();
                    }
                    continue;
                }
                if (event == END) {
                    break;
                }
                output.event(event);
                if (event instanceof LoopEvent.LoopEnd) {
                    break;
                }
            }
        } catch (IOException gone) {
            stayed = false;
            run.cancel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stayed = false;
            run.cancel();
        }
        awaitQuietly(run);
        return stayed;
    }

    static void awaitQuietly(AgentRun run) {
        boolean interrupted = false;
        while (true) {
            try {
                run.await(Duration.ofDays(1));
                if (run.isDone()) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
                run.cancel();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
