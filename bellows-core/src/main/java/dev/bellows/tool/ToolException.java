package dev.bellows.tool;

/**
 * A tool failed in a way the model should read and can act on: the message is written for
 * the model ("file 'a.txt' does not exist; list the folder first"), never a stack trace.
 */
public class ToolException extends Exception {

    public ToolException(String message) {
        super(message);
    }

    public ToolException(String message, Throwable cause) {
        super(message, cause);
    }
}
