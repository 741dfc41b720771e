package dev.bellows.provider;

import java.util.Objects;

/**
 * One message of a conversation sent to a model.
 *
 * @param role    who wrote it
 * @param content its text (an assistant's earlier output goes back verbatim, tags included)
 */
public record Message(Role role, String content) {

    public Message {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }

    public static Message system(String content) {
        return new Message(Role.SYSTEM, content);
    }

    public static Message user(String content) {
        return new Message(Role.USER, content);
    }

    public static Message assistant(String content) {
        return new Message(Role.ASSISTANT, content);
    }
}
