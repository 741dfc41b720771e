package dev.bellows.stream.internal;

/**
 * Decodes the references in XML text: the five predefined entities and numeric character
 * references ({@code &#233;}, {@code &#xE9;}) to Unicode scalar values other than NUL.
 * Anything else after {@code &} stays as written ({@code &nbsp;}, {@code &#0;},
 * {@code &#xD800;}, {@code & x}): models write bare ampersands all the time, and an
 * error for each would be unhelpful.
 */
final class XmlReferences {

    private static final String[] NAMES = {"amp;", "lt;", "gt;", "quot;", "apos;"};
    private static final char[] VALUES = {'&', '<', '>', '"', '\''};

    private XmlReferences() {
    }

    /** Appends {@code text[start, end)} to {@code out} with its references decoded. */
    static void decode(String text, int start, int end, StringBuilder out) {
        int i = start;
        while (i < end) {
            // Bounded by hand: text.indexOf('&', i) would look past `end` to the end of the
            // whole content on every text run, which is quadratic over many short runs.
            int amp = i;
            while (amp < end && text.charAt(amp) != '&') {
                amp++;
            }
            if (amp == end) {
                out.append(text, i, end);
                return;
            }
            out.append(text, i, amp);
            int after = reference(text, amp + 1, end, out);
            if (after < 0) {
                out.append('&');
                i = amp + 1;
            } else {
                i = after;
            }
        }
    }

    /**
     * Decodes the reference whose name starts at {@code from} (just after '&') into
     * {@code out} and returns the index after its ';', or returns -1 and appends nothing.
     * It looks no further than the reference itself, so a failed attempt costs at most
     * the length of the digits it read, each read once more as plain text: linear.
     */
    private static int reference(String text, int from, int end, StringBuilder out) {
        if (from < end && text.charAt(from) == '#') {
            return characterReference(text, from + 1, end, out);
        }
        for (int k = 0; k < NAMES.length; k++) {
            String name = NAMES[k];
            if (end - from >= name.length() && text.startsWith(name, from)) {
                out.append(VALUES[k]);
                return from + name.length();
            }
        }
        return -1;
    }

    /** {@code from} is just after "&#". XML writes hex with a lowercase x only. */
    private static int characterReference(String text, int from, int end, StringBuilder out) {
        int radix = 10;
        int i = from;
        if (i < end && text.charAt(i) == 'x') {
            radix = 16;
            i++;
        }
        int digitsStart = i;
        int value = 0;
        boolean tooLarge = false;
        while (i < end) {
            int digit = Character.digit(text.charAt(i), radix);
            // Character.digit also accepts non-ASCII digits; XML allows only ASCII ones.
            if (digit < 0 || text.charAt(i) > 'z') {
                break;
            }
            if (!tooLarge) {
                value = value * radix + digit;
                tooLarge = value > Character.MAX_CODE_POINT;
            }
            i++;
        }
        if (i == digitsStart || i >= end || text.charAt(i) != ';') {
            return -1;
        }
        if (tooLarge || value == 0 || (value >= Character.MIN_SURROGATE && value <= Character.MAX_SURROGATE)) {
            return -1;
        }
        out.appendCodePoint(value);
        return i + 1;
    }
}
