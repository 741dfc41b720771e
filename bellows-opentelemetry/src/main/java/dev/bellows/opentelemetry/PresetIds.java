package dev.bellows.opentelemetry;

import java.util.function.Supplier;

/**
 * The ids of the span the current thread is starting, when they are given ({@link RunSpanIds}
 * reads them): set only around that one {@code startSpan}. Apart from {@link RunSpanIds} so that
 * nothing here needs the SDK's classes.
 */
final class PresetIds {

    private static final ThreadLocal<String[]> PRESET = new ThreadLocal<>();

    private PresetIds() {
    }

    static String[] current() {
        return PRESET.get();
    }

    /** Runs {@code start} (one span's start) with {@code traceId} and {@code spanId} preset. */
    static <T> T with(String traceId, String spanId, Supplier<T> start) {
        PRESET.set(new String[] {traceId, spanId});
        try {
            return start.get();
        } finally {
            PRESET.remove();
        }
    }
}
