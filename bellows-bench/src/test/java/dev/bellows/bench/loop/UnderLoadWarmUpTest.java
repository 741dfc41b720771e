package dev.bellows.bench.loop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code --settle}: the warm-up goes on while the JIT compiler is still busy, and only then. */
class UnderLoadWarmUpTest {

    @Test
    void offByDefaultTheWarmUpIsItsCount() {
        assertThat(UnderLoad.warmRoundsAfter(2, 3, 40.0, 0)).isEqualTo(3);
    }

    @Test
    void aLastRoundWithTheCompilerAboveTheShareAddsOne() {
        assertThat(UnderLoad.warmRoundsAfter(2, 3, 12.5, 5)).isEqualTo(4);
    }

    @Test
    void aRoundAtOrBelowTheShareEndsTheWarmUp() {
        assertThat(UnderLoad.warmRoundsAfter(2, 3, 5.0, 5)).isEqualTo(3);
        assertThat(UnderLoad.warmRoundsAfter(3, 4, 1.2, 5)).isEqualTo(4);
    }

    @Test
    void onlyTheLastWarmUpRoundDecides() {
        // the first rounds compile the most; the count of rounds asked for is always run
        assertThat(UnderLoad.warmRoundsAfter(0, 3, 60.0, 5)).isEqualTo(3);
    }

    @Test
    void theWarmUpStopsAtItsCapAndAnUnknownShareCountsAsBusy() {
        assertThat(UnderLoad.warmRoundsAfter(UnderLoad.MAX_WARMUP_ROUNDS - 1, UnderLoad.MAX_WARMUP_ROUNDS, 30.0, 5))
                .isEqualTo(UnderLoad.MAX_WARMUP_ROUNDS);
        assertThat(UnderLoad.warmRoundsAfter(2, 3, Double.NaN, 5)).isEqualTo(4);
    }
}
