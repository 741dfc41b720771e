package dev.bellows.stream.internal;


/**
 * Why a tool block is not a valid call, in words for the model. Thrown deep inside the
 * decoders and turned into a {@link dev.bellows.tool.ToolCallError} by
 * {@link ToolCallDecoder}; it never escapes the package. It carries no stack trace: it
 * is an expected outcome (models often write broken calls), not a bug.
 */
final class DecodeFailure extends RuntimeException {

    DecodeFailure(String reason) {
        super(reason, null, false, false);
    }

    String reason() {
        return getMessage();
    }
}
