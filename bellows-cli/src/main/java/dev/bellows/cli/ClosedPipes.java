package dev.bellows.cli;

import java.io.IOException;
import java.util.Locale;

/**
 * A reader that went away ({@code bellows parse | head -1}): not an error worth a line on
 * standard error. The command still ends with the status of a failed output (1), as any
 * program whose output broke off, but says nothing. Other output failures (a full disk) are
 * still reported.
 */
final class ClosedPipes {

    private ClosedPipes() {
    }

    /** True when writing failed because the other end of the pipe was closed (EPIPE). */
    static boolean isClosedPipe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IOException && t.getMessage() != null
                    && t.getMessage().toLowerCase(Locale.ROOT).contains("broken pipe")) {
                return true;
            }
        }
        return false;
    }
}
