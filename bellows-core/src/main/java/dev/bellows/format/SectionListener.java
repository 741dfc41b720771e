package dev.bellows.format;

/**
 * Told what a {@link SectionReader} learns while an answer streams, at the moment it is
 * certain: no later text can change it. Every method has a no-op default.
 */
public interface SectionListener {

    /** A section's heading or open tag was read; its content follows. {@code name} is lower-case. */
    default void opened(String name) {
    }

    /**
     * More content of the section opened last, as written (not trimmed), in order. Text that
     * might still turn out to be a heading or a tag is held back until it is known not to be.
     */
    default void content(String name, CharSequence text) {
    }

    /**
     * A section is complete and not empty: the same name and trimmed content
     * {@link TextFormat#parse} returns for it.
     */
    default void completed(String name, String content) {
    }
}
