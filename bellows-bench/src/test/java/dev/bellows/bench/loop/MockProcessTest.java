package dev.bellows.bench.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scale harness's own parts, for real: the mock in a JVM of its own answering a floor
 * task over HTTP and counting it, the OS's figures the harness reads, and the heap histogram.
 */
class MockProcessTest {

    @Test
    void theMockInItsOwnProcessAnswersCountsAndStops() throws Exception {
        long pid;
        try (MockProcess mock = new MockProcess(2, 3, 0, "128m", null);
                Floor floor = new Floor(mock.baseUrl())) {
            pid = mock.pid();
            assertThat(pid).isNotEqualTo(ProcessHandle.current().pid());
            Map<String, Long> before = mock.stats();

            assertThat(floor.runTask()).isEqualTo(LeanMock.FINAL_ANSWER);

            Map<String, Long> after = mock.stats();
            // two tool calls and the answer, on one kept-alive connection; the harness's own
            // /stats connections are not counted
            assertThat(after.get("requests") - before.get("requests")).isEqualTo(3);
            assertThat(after.get("connections") - before.get("connections")).isEqualTo(1);
            assertThat(after.get("requestBodyBytes")).isGreaterThan(before.get("requestBodyBytes"));
            assertThat(mock.cpuNanos()).isPositive();
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk-length", "jdk-chunked"})
    void theJdkServerMockInItsOwnProcessAnswersAndCounts(String mockName) throws Exception {
        try (MockProcess mock = new MockProcess(mockName, 2, 3, 0, "128m", null);
                Floor floor = new Floor(mock.baseUrl())) {
            Map<String, Long> before = mock.stats();
            assertThat(floor.runTask()).isEqualTo(LeanMock.FINAL_ANSWER);
            assertThat(floor.runTask()).isEqualTo(LeanMock.FINAL_ANSWER);
            Map<String, Long> after = mock.stats();
            assertThat(after.get("requests") - before.get("requests")).isEqualTo(6);
            assertThat(after.get("connections") - before.get("connections")).isEqualTo(1);
        }
    }

    /**
     * Every contestant of the loop comparison gets its answers from every mock, by either
     * framing, and the mock sees the one connection each keeps.
     */
    @ParameterizedTest
    @ValueSource(strings = {"lean", "jdk-length", "jdk-chunked"})
    void everyContestantIsAnsweredByEveryMock(String mockName) throws Exception {
        try (ModelMock mock = UnderLoad.mock(mockName)) {
            for (Contestant contestant : LoopComparison.contestants(mock.baseUrl())) {
                try (contestant) {
                    long connections = mock.connections();
                    assertThat(contestant.runTask()).as(contestant.name()).isEqualTo(LeanMock.FINAL_ANSWER);
                    assertThat(contestant.runTask()).as(contestant.name()).isEqualTo(LeanMock.FINAL_ANSWER);
                    assertThat(mock.connections() - connections).as(contestant.name()).isEqualTo(1);
                }
            }
        }
    }

    @Test
    void runQueueWaitIsReadWhereTheOsSaysIt() {
        long waited = RunQueue.waitedNanos(ProcessHandle.current().pid());
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertThat(waited).isNotNegative();
        } else {
            assertThat(waited).isEqualTo(-1);
        }
    }

    @Test
    void theHistogramNamesTheLiveClasses() throws Exception {
        Map<String, long[]> classes = HeapHistogram.take();
        assertThat(classes).containsKey("java.lang.String");
        assertThat(classes.get("java.lang.String")[0]).isPositive();
        assertThat(classes.get("java.lang.String")[1]).isPositive();
    }
}
