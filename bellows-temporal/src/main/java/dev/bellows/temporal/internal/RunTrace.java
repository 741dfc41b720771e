package dev.bellows.temporal.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The trace context of one durable run, as a W3C {@code traceparent}: its trace id and the id
 * of the run's span, both taken from a SHA-256 of the run's namespace, workflow id and run id.
 * Every worker that makes one of the run's calls computes the same one from what Temporal tells
 * the activity, so the calls' spans share the run's trace and parent wherever and whenever they
 * run, and nothing of it is recorded in the run's history (a run of workers without tracing
 * pays nothing for it).
 */
public final class RunTrace {

    private RunTrace() {
    }

    /** The run's {@code traceparent}: version 00, sampled. */
    public static String traceparent(String namespace, String workflowId, String runId) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest((namespace + "\n" + workflowId + "\n" + runId)
                    .getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        HexFormat hex = HexFormat.of();
        // An all-zero id is invalid in W3C trace context; a digest gives one with odds of 2^-64.
        if (allZero(digest, 0, 16)) {
            digest[15] = 1;
        }
        if (allZero(digest, 16, 24)) {
            digest[23] = 1;
        }
        return "00-" + hex.formatHex(digest, 0, 16) + "-" + hex.formatHex(digest, 16, 24) + "-01";
    }

    private static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
