package dev.bellows.temporal.internal;

import io.temporal.api.common.v1.Payloads;

/**
 * The most a durable run records in one payload: Temporal's default limit on a payload (its
 * blob size limit, 2 MiB), checked on the compressed payload before it is sent. Past the limit
 * a cluster refuses the activity's result or the workflow task that holds it, and the run is
 * stuck retrying it; a model answer or a conversation that big instead ends the run with an error
 * that names the limit and the size (a 4 MB incompressible answer makes a payload of about 3 MB).
 */
final class RecordLimit {

    /** Temporal's default blob size limit. */
    static final int MAX_PAYLOAD_BYTES = 2 * 1024 * 1024;

    private RecordLimit() {
    }

    /** The size of {@code value} as the run's data converter records it (compressed when large). */
    static int size(Object value) {
        return Json.dataConverter().toPayloads(value).map(Payloads::getSerializedSize).orElse(0);
    }

    /** Null when {@code value} fits; else why {@code what} cannot be recorded. */
    static String tooBig(String what, Object value) {
        int size = size(value);
        if (size <= MAX_PAYLOAD_BYTES) {
            return null;
        }
        return what + " is too big for a durable run to record: " + size + " bytes compressed, above the "
                + MAX_PAYLOAD_BYTES + " bytes (2 MiB, Temporal's default limit) one payload may hold";
    }
}
