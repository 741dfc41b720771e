package dev.bellows.cli;

import dev.bellows.secret.Secrets;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * How the command line sets the library's logging up. The library logs its real trouble at
 * {@code WARNING}, which the JDK's default setup prints to standard error with a stack trace;
 * the commands already report each such failure in one line of their own (a store that
 * failed, a listener that threw), so by default the library's lines are off. A user who gives
 * a {@code java.util.logging} configuration gets exactly what it says, and
 * {@code BELLOWS_DEBUG=1} keeps the JDK's default (warnings and above).
 */
final class CliLogging {

    /** The library's loggers all sit under this name. */
    static final String LIBRARY = "dev.bellows";

    /** Held here because {@code java.util.logging} keeps its loggers only weakly. */
    private static Logger library;

    private CliLogging() {
    }

    /**
     * Switches the library's logging off unless the user configured logging or asked for debug output.
     *
     * @return whether it was switched off
     */
    static synchronized boolean configure(boolean debug) {
        boolean configuredByUser = System.getProperty("java.util.logging.config.file") != null
                || System.getProperty("java.util.logging.config.class") != null;
        library = Logger.getLogger(LIBRARY);
        if (debug || configuredByUser) {
            if (library.getFilter() == null) {
                library.setFilter(CliLogging::redact);
            }
            return false;
        }
        library.setLevel(Level.OFF);
        return true;
    }

    /**
     * Takes every registered secret out of a library log record before any handler formats it:
     * its message, its parameters, and its exception (replaced, when its text holds one, by a
     * copy with the text redacted and the same stack trace). Always lets the record through.
     */
    static boolean redact(LogRecord record) {
        record.setMessage(Secrets.redact(record.getMessage()));
        Object[] parameters = record.getParameters();
        if (parameters != null) {
            Object[] redacted = parameters.clone();
            for (int i = 0; i < redacted.length; i++) {
                if (redacted[i] != null && Secrets.appearIn(String.valueOf(redacted[i]))) {
                    redacted[i] = Secrets.redact(String.valueOf(redacted[i]));
                }
            }
            record.setParameters(redacted);
        }
        Throwable thrown = record.getThrown();
        if (thrown != null && Secrets.appearIn(String.valueOf(thrown))) {
            Throwable copy = new Throwable(Secrets.redact(String.valueOf(thrown)));
            copy.setStackTrace(thrown.getStackTrace());
            record.setThrown(copy);
        }
        return true;
    }
}
