package dev.bellows.eval.report;

import java.io.IOException;

/**
 * A report file that cannot be read or is not a report: missing, unreadable, not JSON, or
 * a field of the wrong kind. The message names the file and, when one is at fault, the
 * field ({@code cases[2].runs[0].passed}).
 */
public final class InvalidReportException extends IOException {

    private static final long serialVersionUID = 1L;

    InvalidReportException(String message) {
        super(message);
    }

    InvalidReportException(String message, Throwable cause) {
        super(message, cause);
    }
}
