package dev.bellows.eval.report;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Numbers as the report's pages write them, as {@code String.format(Locale.ROOT, ...)} would
 * ({@code %.2f}, {@code %,d}) without a formatter parsed per number: a page of 1,000 runs
 * writes several for each run.
 */
final class Figures {

    private Figures() {
    }

    /** {@code value} with {@code places} decimals, rounded half up, as {@code %.Nf}; not a number as {@code NaN}. */
    static String fixed(double value, int places) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
        }
        String text = BigDecimal.valueOf(value).setScale(places, RoundingMode.HALF_UP).toPlainString();
        return text.startsWith("-") && BigDecimal.ZERO.compareTo(new BigDecimal(text)) == 0 ? text.substring(1) : text;
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
