package dev.bellows.format;

/**
 * A model's output could not be split into sections. The message is written for the model: it
 * says which sections were expected and how to write them, so it can be sent back as is.
 */
public class TextFormatException extends Exception {

    public TextFormatException(String message) {
        super(message);
    }
}
