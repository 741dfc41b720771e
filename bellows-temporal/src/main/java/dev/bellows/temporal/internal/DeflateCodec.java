package dev.bellows.temporal.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.temporal.api.common.v1.Payload;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Compresses every payload larger than {@link #THRESHOLD} (the whole payload, metadata
 * included, as Temporal's own codec samples do) so that conversations, answers and tool results
 * take a fraction of the history they would: text compresses three to ten times. A payload that
 * does not shrink is kept as it is. Decoding refuses to inflate beyond {@link #MAX_INFLATED}, so
 * a forged payload cannot exhaust a worker's memory.
 *
 * <p>Stateless and thread-safe.
 */
public final class DeflateCodec implements PayloadCodec {

    /** Payloads at most this large are left alone: compressing them gains nothing worth the CPU. */
    public static final int THRESHOLD = 4 * 1024;
    /** The largest payload a compressed one may inflate to. */
    public static final int MAX_INFLATED = 64 * 1024 * 1024;
    /** The metadata {@code encoding} of a compressed payload. */
    public static final String ENCODING = "binary/bellows-deflate";

    private static final String ENCODING_KEY = "encoding";

    @Override
    public List<Payload> encode(List<Payload> payloads) {
        List<Payload> out = new ArrayList<>(payloads.size());
        for (Payload payload : payloads) {
            out.add(encode(payload));
        }
        return out;
    }

    private static Payload encode(Payload payload) {
        if (payload.getData().size() <= THRESHOLD) {
            return payload;
        }
        byte[] whole = payload.toByteArray();
        byte[] compressed = deflate(whole);
        if (compressed.length >= whole.length) {
            return payload;
        }
        return Payload.newBuilder()
                .putMetadata(ENCODING_KEY, ByteString.copyFromUtf8(ENCODING))
                .setData(ByteString.copyFrom(compressed))
                .build();
    }

    @Override
    public List<Payload> decode(List<Payload> payloads) {
        List<Payload> out = new ArrayList<>(payloads.size());
        for (Payload payload : payloads) {
            ByteString encoding = payload.getMetadataMap().get(ENCODING_KEY);
            if (encoding == null || !encoding.toStringUtf8().equals(ENCODING)) {
                out.add(payload);
                continue;
            }
            try {
                out.add(Payload.parseFrom(inflate(payload.getData().toByteArray())));
            } catch (InvalidProtocolBufferException | DataFormatException e) {
                throw new PayloadCodecException("a compressed payload could not be read: " + e.getMessage(), e);
            }
        }
        return out;
    }

    static byte[] deflate(byte[] data) {
        Deflater deflater = new Deflater(Deflater.BEST_SPEED);
        try {
            deflater.setInput(data);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.length / 4));
            byte[] buffer = new byte[16 * 1024];
            while (!deflater.finished()) {
                out.write(buffer, 0, deflater.deflate(buffer));
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    static byte[] inflate(byte[] data) throws DataFormatException {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(data);
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.length * 4));
            byte[] buffer = new byte[16 * 1024];
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new DataFormatException("the compressed data ends too early");
                }
                if (out.size() + n > MAX_INFLATED) {
                    throw new DataFormatException("it inflates beyond " + MAX_INFLATED + " bytes");
                }
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        } finally {
            inflater.end();
        }
    }
}
