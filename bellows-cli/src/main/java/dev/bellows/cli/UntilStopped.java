package dev.bellows.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * What the commands that serve until they are stopped (mock-server, temporal-dev) do once their
 * server listens: print {@code listening on ADDRESS} on standard output, then wait for SIGINT or
 * SIGTERM (a shutdown hook stops the server and ends the wait), and stop the server however the
 * wait ends. Exit status 0, or 1 when standard output cannot be written (a closed pipe is not
 * reported: the reader went away).
 */
final class UntilStopped {

    private UntilStopped() {
    }

    /**
     * @param address   what follows {@code listening on}
     * @param stop      stops the server; called from the hook and again at the end, so it must
     *                  bear a second call
     * @param listening said after the listening line (a hint on standard error), or nothing
     */
    static int serve(BellowsCommand root, String command, String address, Runnable stop, Runnable listening) {
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.run();
            stopped.countDown();
        }, command.replace(' ', '-') + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            root.stdout.write(("listening on " + address + "\n").getBytes(StandardCharsets.UTF_8));
            root.stdout.flush();
            listening.run();
            stopped.await();
            return 0;
        } catch (InterruptedException e) {
            return 0; // stopped in-process
        } catch (IOException e) {
            if (!ClosedPipes.isClosedPipe(e)) {
                root.stderr.println(command + ": cannot write to standard output: " + e.getMessage());
                root.stderr.flush();
            }
            return 1;
        } finally {
            stop.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is running
            }
        }
    }
}
