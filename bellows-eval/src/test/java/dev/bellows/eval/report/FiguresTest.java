package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FiguresTest {

    /** How the page formatted numbers before (BigDecimal): what {@link Figures#fixed} must give, digit for digit. */
    private static String before(double value, int places) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
        }
        String text = BigDecimal.valueOf(value).setScale(places, RoundingMode.HALF_UP).toPlainString();
        return text.startsWith("-") && BigDecimal.ZERO.compareTo(new BigDecimal(text)) == 0 ? text.substring(1) : text;
    }

    @Test
    void edgeCasesAreFormattedAsBigDecimalFormattedThem() {
        double[] values = {0.0, -0.0, 1, -1, 0.5, -0.5, 1.5, 2.5, 0.125, 0.375, 1.005, 2.675, 1.045, 9.995, 99.95, 0.995,
                0.9999999, 9.5, 99.5, 999.5, 999_999.5, 0.05, 0.045, 0.0049, 0.005, -0.005, -0.004, 1e-3, 9.9999e-4, 5e-7,
                4.9999e-7, 1.23e-4, 0.000123456, 1e-300, Double.MIN_VALUE, 1e7, 1.0e7 + 0.5, 12_345_678.9, 1e15, 1e16, 1e20,
                1.7976931348623157e308, -1.7976931348623157e308, 123.456, -123.456, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 100, 100.0 / 3,
                Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 12_345, -7, 999_999_999_999_999.0, -1e15, 4.35, 0.285, 1.255, 8.345, 0.0095, 0.00095};
        for (double value : values) {
            for (int places = 0; places <= 7; places++) {
                assertThat(Figures.fixed(value, places)).as("%s to %d places", value, places).isEqualTo(before(value, places));
            }
        }
    }

    @Test
    void manyValuesOfEveryMagnitudeAreFormattedAsBigDecimalFormattedThem() {
        SplittableRandom random = new SplittableRandom(35);
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            double value = switch (i % 4) {
                case 0 -> random.nextDouble() * Math.pow(10, random.nextInt(-9, 12)) * (random.nextBoolean() ? 1 : -1);
                case 1 -> random.nextInt(-100_000, 100_000) / 1000.0;        // short decimals: ties at every place
                case 2 -> (random.nextInt(0, 20_000) + 0.5) / Math.pow(10, random.nextInt(0, 7));
                default -> Double.longBitsToDouble(random.nextLong());      // any double at all
            };
            int places = random.nextInt(0, 8);
            String got = Figures.fixed(value, places);
            if (!got.equals(before(value, places))) {
                wrong.add(value + " to " + places + ": " + got + " against " + before(value, places));
            }
        }
        assertThat(wrong).isEmpty();
    }
}
