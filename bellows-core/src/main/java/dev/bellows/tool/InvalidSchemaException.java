package dev.bellows.tool;

/**
 * A tool's JSON Schema cannot be used to check arguments: it breaks the JSON Schema rules
 * ({@code "type": "strin"}), refers to a definition it does not have, refers to itself without
 * end, or has a pattern that is not a regular expression. This is the tool's bug, not the
 * model's: it is raised when the tool is registered or its server lists it, never in a call.
 * The message says where in the schema and what is wrong.
 */
public final class InvalidSchemaException extends IllegalArgumentException {

    public InvalidSchemaException(String message) {
        super(message);
    }

    public InvalidSchemaException(String message, Throwable cause) {
        super(message, cause);
    }
}
