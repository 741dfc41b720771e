package dev.bellows.cli;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How an interrupt (Ctrl-C) reaches a running command: {@link #onInterrupt} installs an
 * action until the returned handle is closed. The process uses {@link #sigint()}; tests
 * use their own to cancel a run at the moment they choose.
 */
@FunctionalInterface
interface Interrupts {

    /** Runs {@code action} on each interrupt until the returned handle is closed. */
    AutoCloseable onInterrupt(Runnable action);

    /** No interrupts ever arrive. */
    Interrupts NONE = action -> () -> { };

    /** Whether SIGTERM arrived while a command was cancellable: its exit status is then 143. */
    AtomicBoolean TERMINATED = new AtomicBoolean();

    /** How long SIGTERM waits for the cancelled command to end before the process exits anyway. */
    long TERMINATE_GRACE_MILLIS = 1000;

    /**
     * SIGINT and SIGTERM through {@code sun.misc.Signal} (module jdk.unsupported, present in
     * every OpenJDK build). The first Ctrl-C runs the action (the run is cancelled and ends
     * {@code cancelled}, exit status 130); a second one, if the first has not ended things,
     * exits with 130 at once, running only the shutdown hooks (which stop MCP servers, so
     * none is left running). SIGTERM cancels exactly as Ctrl-C does (the model call and the
     * tools in flight, MCP calls included, so nothing further is sent to the model), marks
     * the process {@link #TERMINATED} (exit status 143), and exits with 143 after
     * {@link #TERMINATE_GRACE_MILLIS} should the command not have ended by then. Outside an
     * action, SIGTERM keeps the JVM's own handling (the hooks run, exit status 143). Closing
     * restores the previous handlers. Where the signal API is missing, a shutdown hook runs
     * the action instead (the JVM then exits on its own).
     */
    static Interrupts sigint() {
        return action -> {
            try {
                AtomicInteger count = new AtomicInteger();
                sun.misc.Signal interrupt = new sun.misc.Signal("INT");
                sun.misc.Signal terminate = new sun.misc.Signal("TERM");
                sun.misc.SignalHandler previous = sun.misc.Signal.handle(interrupt, received -> {
                    if (count.incrementAndGet() == 1) {
                        action.run();
                    } else {
                        // exit, not halt: the hooks stop the MCP servers the run started.
                        Thread.ofPlatform().daemon().start(() -> System.exit(130));
                    }
                });
                sun.misc.SignalHandler previousTerm = sun.misc.Signal.handle(terminate, received -> {
                    if (TERMINATED.getAndSet(true)) {
                        return;
                    }
                    // The grace period counts from the signal, whatever the action does: a durable
                    // run's cancel once waited here for a dead frontend for a minute.
                    Thread.ofPlatform().daemon().start(() -> {
                        try {
                            Thread.sleep(TERMINATE_GRACE_MILLIS);
                        } catch (InterruptedException e) {
                            return;
                        }
                        System.exit(143); // the hooks stop the MCP servers
                    });
                    action.run();
                });
                return () -> {
                    sun.misc.Signal.handle(interrupt, previous);
                    sun.misc.Signal.handle(terminate, previousTerm);
                };
            } catch (LinkageError | IllegalArgumentException e) {
                Thread hook = new Thread(action, "bellows-interrupt");
                Runtime.getRuntime().addShutdownHook(hook);
                return () -> {
                    try {
                        Runtime.getRuntime().removeShutdownHook(hook);
                    } catch (IllegalStateException shuttingDown) {
                        // the hook is running
                    }
                };
            }
        };
    }
}
