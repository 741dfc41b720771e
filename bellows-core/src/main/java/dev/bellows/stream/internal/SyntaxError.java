package dev.bellows.stream.internal;

/**
 * Why a tool call's text is not valid JSON or XML, and where: an offset into that text, which
 * the decoder turns into a line and column for the model. Thrown and caught inside the
 * decoder only, so it carries no stack trace.
 */
public final class SyntaxError extends Exception {

    private final int offset;

    SyntaxError(String problem, int offset) {
        super(problem, null, false, false);
        this.offset = offset;
    }

    String problem() {
        return getMessage();
    }

    int offset() {
        return offset;
    }
}
