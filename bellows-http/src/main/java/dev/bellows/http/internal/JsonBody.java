package dev.bellows.http.internal;

import dev.bellows.http.internal.PartedBody;
import dev.bellows.http.internal.RequestJson;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Internal to the Bellows providers, not for users (it may change in any release): writes a
 * JSON request body front to back into a {@link PartedBody}. The provider spells out the
 * fixed bytes itself (field names, punctuation) and hands over cached encodings; values go
 * through a Jackson generator, text through {@link RequestJson#wire}. The generator is flushed
 * before every raw write, so everything lands in the order written. One thread, one body.
 */
public final class JsonBody implements AutoCloseable {

    // Values are written one at a time at the root, with the punctuation between them
    // written by the provider: no separator of the generator's own between root values.
    private static final ObjectWriter ROOT_VALUES = RequestJson.mapper().writer().withRootValueSeparator((String) null);

    private final PartedBody body;
    private final JsonGenerator generator;

    /** @param sizeHint about the body's length in bytes, so its buffer is rarely grown */
    public JsonBody(int sizeHint) {
        body = new PartedBody(sizeHint);
        generator = ROOT_VALUES.createGenerator(body.out());
    }

    /** Appends fixed bytes (a field name with its punctuation, say), unchanged. */
    public void raw(byte[] bytes) throws IOException {
        generator.flush();
        body.write(bytes);
    }

    /** Appends one ASCII character. */
    public void raw(char c) throws IOException {
        generator.flush();
        body.write(c);
    }

    /** Appends a cached encoding, sent as it is, never copied; the caller never changes it. */
    public void cached(byte[] bytes) throws IOException {
        generator.flush();
        body.cached(bytes);
    }

    /** A JSON string (null as {@code null}), a lone surrogate in it as '?'. */
    public void string(String text) throws IOException {
        generator.writeString(RequestJson.wire(text));
    }

    /** A JSON number. */
    public void number(double value) throws IOException {
        generator.writeNumber(value);
    }

    /** A JSON number, in ASCII digits. */
    public void number(int value) throws IOException {
        generator.flush();
        body.writeInt(value);
    }

    /** A JSON array of strings, each as {@link #string} writes it. */
    public void strings(List<String> texts) throws IOException {
        generator.writeStartArray();
        for (String text : texts) {
            string(text);
        }
        generator.writeEndArray();
    }

    /** {@code name} (its bytes, punctuation and all) and the number, only when there is one. */
    public void optionalNumber(byte[] name, Optional<Double> value) throws IOException {
        if (value.isPresent()) {
            raw(name);
            number(value.get());
        }
    }

    /** {@code name} (its bytes, punctuation and all) and the array, only when it is not empty. */
    public void optionalStrings(byte[] name, List<String> texts) throws IOException {
        if (!texts.isEmpty()) {
            raw(name);
            strings(texts);
        }
    }

    /**
     * The generator, for structures written field by field; text given to it must go through
     * {@link RequestJson#wire} first.
     */
    public JsonGenerator generator() {
        return generator;
    }

    /** Ends writing: the body, ready to send. */
    public PartedBody finish() throws IOException {
        generator.close();
        return body.finish();
    }

    @Override
    public void close() throws IOException {
        generator.close();
    }
}
