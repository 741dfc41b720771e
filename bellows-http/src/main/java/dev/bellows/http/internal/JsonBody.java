package dev.bellows.http.internal;

import dev.bellows.http.internal.PartedBody;
import dev.bellows.http.internal.RequestJson;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Internal to the Bellows providers, not for users (it may change in any release): writes a
 * JSON request body front to back into a {@link PartedBody}. The provider spells out the
 * fixed bytes itself (field names, punctuation) and hands over cached encodings; values go
 * through a Jackson generator, text through {@link RequestJson#wire}. The generator is flushed
 * before every raw write, so everything lands in the order written. One thread, one body.
 *
 * <p>The generator is not made per body: Jackson 3's set-up of one (the generator, its I/O
 * context, a serialization context, a content reference, a write context) was about half a
 * KiB per request. A few generators wait between bodies ({@link #IDLE}), each writing through a
 * {@link Target} pointed at one body at a time; a body takes one, or makes one when none is
 * idle, and gives it back when it is finished (or closed) with the generator at the root and
 * flushed, else closes it. Thread-safe in that sense only: bodies on many threads at once.
 */
public final class JsonBody implements AutoCloseable {

    // Values are written one at a time at the root, with the punctuation between them
    // written by the provider: no separator of the generator's own between root values.
    private static final ObjectWriter ROOT_VALUES = RequestJson.mapper().writer().withRootValueSeparator((String) null);

    /** Generators between bodies: enough for the bodies written at the same moment, not the requests in flight. */
    private static final AtomicReferenceArray<Writer> IDLE = new AtomicReferenceArray<>(16);

    private final PartedBody body;
    private final JsonGenerator generator;
    private Writer writer;      // null once given back or closed

    /** @param sizeHint about the body's length in bytes, so its buffer is rarely grown */
    public JsonBody(int sizeHint) {
        body = new PartedBody(sizeHint);
        writer = Writer.take();
        writer.target.body = body.out();
        generator = writer.generator;
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
        release();
        return body.finish();
    }

    @Override
    public void close() throws IOException {
        release();
    }

    /** Flushes the generator into this body and gives it back (or closes it when it stopped inside a value). */
    private void release() {
        Writer done = writer;
        if (done == null) {
            return;
        }
        writer = null;
        if (done.generator.streamWriteContext().inRoot()) {
            generator.flush();
            done.target.body = null;
            if (Writer.giveBack(done)) {
                return;
            }
        }
        generator.close();
    }

    /** A generator and the stream it writes to, which points at one body at a time. */
    private static final class Writer {
        final Target target = new Target();
        final JsonGenerator generator = ROOT_VALUES.createGenerator(target);

        static Writer take() {
            for (int i = 0; i < IDLE.length(); i++) {
                Writer idle = IDLE.get(i);
                if (idle != null && IDLE.compareAndSet(i, idle, null)) {
                    return idle;
                }
            }
            return new Writer();
        }

        /** False when every place is taken: the caller closes it. */
        static boolean giveBack(Writer writer) {
            for (int i = 0; i < IDLE.length(); i++) {
                if (IDLE.get(i) == null && IDLE.compareAndSet(i, null, writer)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Passes the generator's bytes on to the body being written. */
    private static final class Target extends OutputStream {
        OutputStream body;

        @Override
        public void write(int b) throws IOException {
            body.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int count) throws IOException {
            body.write(bytes, offset, count);
        }
    }
}
