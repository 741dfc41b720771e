package dev.bellows.testkit;

// bellows-core's tests compile this file too (core's pom; DEVELOPERS.md, "The loop's tests and
// testkit's fixtures"): use core and the JDK only, and of testkit only the six files core copies.

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what Bellows logs, for a test: Bellows logs through {@code System.Logger}, which
 * the JDK sends to {@code java.util.logging} unless another backend is installed, so this
 * attaches a handler to the {@code java.util.logging} logger of a name (and its children),
 * lets every level through while open, and puts everything back when closed.
 *
 * <pre>{@code
 * try (LogCapture logs = LogCapture.of("dev.bellows")) {
 *     ... run something ...
 *     assertThat(logs.lines()).anyMatch(line -> line.contains("retrying"));
 * }
 * }</pre>
 */
public final class LogCapture implements AutoCloseable {

    /** One captured line: its level and its message, with the exception's text when there is one. */
    public record Line(Level level, String logger, String message, Throwable thrown) {

        @Override
        public String toString() {
            return level + " " + logger + ": " + message + (thrown == null ? "" : " (" + thrown + ")");
        }
    }

    private final Logger logger;
    private final Level previous;
    private final List<Line> lines = new ArrayList<>();   // guarded by this
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            String message = record.getMessage();
            if (record.getParameters() != null && record.getParameters().length > 0 && message != null) {
                message = java.text.MessageFormat.format(message, record.getParameters());
            }
            synchronized (LogCapture.this) {
                lines.add(new Line(record.getLevel(), record.getLoggerName(), message, record.getThrown()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogCapture(String name) {
        // Keep a strong reference: java.util.logging holds its loggers weakly.
        this.logger = Logger.getLogger(Objects.requireNonNull(name, "name"));
        this.previous = logger.getLevel();
        handler.setLevel(Level.ALL);
        logger.addHandler(handler);
        logger.setLevel(Level.ALL);
    }

    /** Starts capturing everything logged under {@code name} (e.g. {@code "dev.bellows"}). */
    public static LogCapture of(String name) {
        return new LogCapture(name);
    }

    /** What was logged so far, in order. */
    public synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /** Each line as text: level, logger, message and the exception's {@code toString}. */
    public List<String> text() {
        return lines().stream().map(Line::toString).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(previous);
    }
}
