package dev.bellows.cli;

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

    /**
     * SIGINT through {@code sun.misc.Signal} (module jdk.unsupported, present in every
     * OpenJDK build): the first Ctrl-C runs the action (the run is cancelled and ends
     * {@code cancelled}, exit status 130); a second one, if the first has not ended things,
     * exits with 130 at once, running only the shutdown hooks (which stop MCP servers, so
     * none is left running). Closing restores the previous handler. Where the signal API is
     * missing, a shutdown hook runs the action instead (the JVM then exits on its own).
     */
    static Interrupts sigint() {
        return action -> {
            try {
                AtomicInteger count = new AtomicInteger();
                sun.misc.Signal signal = new sun.misc.Signal("INT");
                sun.misc.SignalHandler previous = sun.misc.Signal.handle(signal, received -> {
                    if (count.incrementAndGet() == 1) {
                        action.run();
                    } else {
                        // exit, not halt: the hooks stop the MCP servers the run started.
                        Thread.ofPlatform().daemon().start(() -> System.exit(130));
                    }
                });
                return () -> sun.misc.Signal.handle(signal, previous);
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
