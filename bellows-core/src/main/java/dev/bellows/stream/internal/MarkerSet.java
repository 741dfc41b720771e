package dev.bellows.stream.internal;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The literal delimiters one state of the {@link MarkerScanner} recognises, and the characters
 * that can start one (so plain text is skipped with one bit test a character). A candidate is
 * matched against at most 64 delimiters at once, as a bit mask.
 */
final class MarkerSet {

    /**
     * One delimiter: its text, what it does ({@code MarkerScanner}'s action constants) and an
     * index the action needs (which thinking delimiters, which form of call).
     */
    record Marker(String text, int action, int index) {
    }

    final Marker[] markers;
    final BitSet first = new BitSet();
    /** Every delimiter, as a mask. */
    final long all;

    MarkerSet(List<Marker> list) {
        Map<String, Marker> unique = new LinkedHashMap<>();
        for (Marker m : list) {
            unique.putIfAbsent(m.text(), m);
        }
        this.markers = unique.values().toArray(new Marker[0]);
        if (markers.length > Long.SIZE) {
            throw new IllegalArgumentException("at most 64 delimiters per state");
        }
        for (Marker m : markers) {
            first.set(m.text().charAt(0));
        }
        this.all = markers.length == Long.SIZE ? -1L : (1L << markers.length) - 1;
    }
}
