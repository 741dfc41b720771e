package dev.bellows.bench.loop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The verdict lines under the load report: each of issue 20's and 30's targets, met or named as missed. */
class UnderLoadVerdictTest {

    /** A tally of 1,000 tasks in {@code seconds}, with that much CPU per task and new connections. */
    private static UnderLoad.Tally tally(double seconds, long cpuMicrosPerTask, long connections) {
        UnderLoad.Tally tally = new UnderLoad.Tally();
        tally.durations.add(new long[1000]);
        tally.wallNanos = (long) (seconds * 1e9);
        tally.cpuNanos = cpuMicrosPerTask * 1000 * 1000;
        tally.connections = connections;
        return tally;
    }

    @Test
    void allTargetsMet() {
        // 1,000 tasks/s against the floor's 1,200 (0.83x) and LangChain4j's 900, less CPU
        assertThat(UnderLoad.verdict(tally(1.0, 600, 0), tally(1.0 / 1.2, 500, 0), tally(1.0 / 0.9, 700, 0)))
                .isEqualTo("issue 20's targets: met");
    }

    @Test
    void eachMissedTargetIsNamed() {
        assertThat(UnderLoad.verdict(tally(1.0, 800, 3), tally(0.5, 500, 0), tally(0.9, 700, 0)))
                .isEqualTo("issue 20's targets: missed (throughput below LangChain4j's, throughput below 0.8x"
                        + " the floor's, CPU per task above LangChain4j's, 3 new connections)");
    }

    @Test
    void connectionTargetsMet() {
        UnderLoad.Tally ours = tally(1.0, 600, 0);
        ours.peakOpen = 64;
        assertThat(UnderLoad.connectionVerdict(ours, tally(1.0 / 1.2, 500, 0), 64)).isEqualTo("issue 30's targets: met");
    }

    @Test
    void eachMissedConnectionTargetIsNamed() {
        UnderLoad.Tally ours = tally(1.0, 600, 12);
        ours.peakOpen = 70;
        assertThat(UnderLoad.connectionVerdict(ours, tally(0.5, 500, 0), 64))
                .isEqualTo("issue 30's targets: missed (70 connections kept for 64 tasks at once, 12 new connections,"
                        + " throughput below 0.8x the floor's)");
    }
}
