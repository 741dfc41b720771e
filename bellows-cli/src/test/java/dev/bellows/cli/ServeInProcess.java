package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.Background;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bellows serve ARGS} in the test's JVM (no child JVM to start), until closed: closing
 * interrupts it as SIGINT would and checks that it exited 0.
 */
final class ServeInProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)/");

    private final String url;
    private final Runnable stop;
    private final CompletableFuture<Integer> status;
    private final ByteArrayOutputStream err;

    private ServeInProcess(String url, Runnable stop, CompletableFuture<Integer> status, ByteArrayOutputStream err) {
        this.url = url;
        this.stop = stop;
        this.status = status;
        this.err = err;
    }

    /** Starts it with the environment {@code env}, working in {@code dir}, and waits until it listens. */
    static ServeInProcess start(Path dir, Map<String, String> env, String... args) throws Exception {
        AtomicReference<Runnable> stop = new AtomicReference<>();
        Interrupts interrupts = action -> {
            stop.set(action);
            return () -> { };
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> status = Background.supply(() -> BellowsCommand.commandLine(
                new ByteArrayInputStream(new byte[0]), out, err, false, new Host(env, dir, interrupts, false))
                .execute(args));
        Matcher listening = LISTENING.matcher("");
        while (!listening.reset(out.toString(StandardCharsets.UTF_8)).find()) {
            assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isNotDone();
            Thread.sleep(20);
        }
        return new ServeInProcess(listening.group(1), stop.get(), status, err);
    }

    /** {@code http://127.0.0.1:PORT}, no slash at the end. */
    String url() {
        return url;
    }

    @Override
    public void close() throws Exception {
        stop.run();
        assertThat(status.get(60, TimeUnit.SECONDS)).as(err.toString(StandardCharsets.UTF_8)).isZero();
    }
}
