package dev.bellows.http.internal;

import dev.bellows.http.SseEvent;

/**
 * Checks on an event's data bytes for JSON readers that read them in place: whether the
 * data is a JSON object in well-formed UTF-8, which a byte parser reads as a reader of the
 * decoded text would.
 */
public final class JsonEvents {

    private JsonEvents() {
    }

    /**
     * Whether the data's first byte after JSON whitespace opens an object and all of it is
     * well-formed UTF-8 (Jackson's byte parsers let some invalid UTF-8 through, in names say,
     * where the decoded text has U+FFFD: such data is for a reader of the text).
     */
    public static boolean startsAnObjectInWellFormedUtf8(SseEvent event) {
        byte[] data = EventBytes.of(event);
        int length = data.length;
        for (int i = 0; i < length; i++) {
            byte b = data[i];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return b == '{' && wellFormedUtf8(data, i + 1, length);
            }
        }
        return false;
    }

    /** Whether the data's bytes {@code [from, to)} are well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF). */
    public static boolean wellFormedUtf8(SseEvent event, int from, int to) {
        return wellFormedUtf8(EventBytes.of(event), from, to);
    }

    private static boolean wellFormedUtf8(byte[] data, int from, int to) {
        int i = from;
        while (i < to) {
            int b = data[i] & 0xFF;
            if (b < 0x80) {
                i++;
                continue;
            }
            int more;
            int min;                                 // the least second byte allowed, then the most
            int max = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                more = 1;
                min = 0x80;
            } else if (b >= 0xE0 && b <= 0xEF) {
                more = 2;
                min = b == 0xE0 ? 0xA0 : 0x80;
                max = b == 0xED ? 0x9F : 0xBF;       // no surrogates
            } else if (b >= 0xF0 && b <= 0xF4) {
                more = 3;
                min = b == 0xF0 ? 0x90 : 0x80;
                max = b == 0xF4 ? 0x8F : 0xBF;       // nothing above U+10FFFF
            } else {
                return false;
            }
            if (i + more >= to) {
                return false;
            }
            int second = data[i + 1] & 0xFF;
            if (second < min || second > max) {
                return false;
            }
            for (int k = 2; k <= more; k++) {
                int next = data[i + k] & 0xFF;
                if (next < 0x80 || next > 0xBF) {
                    return false;
                }
            }
            i += more + 1;
        }
        return true;
    }
}
