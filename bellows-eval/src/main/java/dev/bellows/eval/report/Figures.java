package dev.bellows.eval.report;

/**
 * Numbers as the report's pages write them, as {@code String.format(Locale.ROOT, ...)} would
 * ({@code %.2f}, {@code %,d}) without a formatter parsed per number: a page of 1,000 runs
 * writes several for each run.
 */
final class Figures {

    /** A whole number's decimals, by places. */
    private static final String[] ZEROS = {"", ".0", ".00", ".000", ".0000", ".00000", ".000000"};

    private Figures() {
    }

    /**
     * {@code value} with {@code places} decimals, rounded half up, as {@code %.Nf}; not a number
     * as {@code NaN}. Exactly what {@code BigDecimal.valueOf(value).setScale(places, HALF_UP)
     * .toPlainString()} gives (a zero without its minus sign), without the {@code BigDecimal}s:
     * the shortest decimal of the double ({@link Double#toString}) rounded as text, its first
     * dropped digit deciding.
     */
    static String fixed(double value, int places) {
        if (value == (long) value && Math.abs(value) < 1e15 && places < ZEROS.length) {
            // a whole number (most of a report's scores: 1 and 0) needs no digits of its own: no minus for a zero
            return (value == 0 ? "0" : Long.toString((long) value)) + ZEROS[places];
        }
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
        }
        String shortest = Double.toString(value);       // [-]d+.d+ or [-]d.d+E[-]n
        boolean negative = shortest.charAt(0) == '-';
        int start = negative ? 1 : 0;
        int e = shortest.indexOf('E');
        int end = e < 0 ? shortest.length() : e;
        int exponent = e < 0 ? 0 : Integer.parseInt(shortest, e + 1, shortest.length(), 10);
        int dot = shortest.indexOf('.', start);
        // the digits, a '0' in front for a carry: digit i weighs 10^(point - 1 - i)
        char[] digits = new char[end - start];
        digits[0] = '0';
        int count = 1;
        for (int i = start; i < end; i++) {
            if (i != dot) {
                digits[count++] = shortest.charAt(i);
            }
        }
        int point = dot - start + 1 + exponent;
        int keep = point + places;      // the digits kept: those weighing at least 10^-places
        if (keep <= 0) {
            keep = 0;                   // below half a unit of the last place: zero
        } else if (keep < count) {
            if (digits[keep] >= '5') {
                int i = keep - 1;
                for (; digits[i] == '9'; i--) {
                    digits[i] = '0';
                }
                digits[i]++;
            }
        }
        StringBuilder text = new StringBuilder(Math.max(point, 1) + places + 2);
        boolean nonZero = false;
        for (int weight = Math.max(point - 1, 0); weight >= -places; weight--) {
            int i = point - 1 - weight;
            char digit = i >= 0 && i < keep && i < count ? digits[i] : '0';
            nonZero |= digit != '0';
            if (weight == -1) {
                text.append('.');
            }
            if (digit != '0' || weight <= 0 || text.length() > 0) {
                text.append(digit);     // no leading zeros before the units
            }
        }
        return negative && nonZero ? "-" + text : text.toString();
    }

    /** {@code value} with a comma between each three digits, as {@code %,d}. */
    static String grouped(long value) {
        String digits = Long.toString(Math.abs(value));
        StringBuilder text = new StringBuilder(digits.length() + digits.length() / 3 + 1);
        if (value < 0) {
            text.append('-');
        }
        for (int i = 0; i < digits.length(); i++) {
            if (i > 0 && (digits.length() - i) % 3 == 0) {
                text.append(',');
            }
            text.append(digits.charAt(i));
        }
        return text.toString();
    }
}
