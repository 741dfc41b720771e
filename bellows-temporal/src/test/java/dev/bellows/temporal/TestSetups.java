package dev.bellows.temporal;

import dev.bellows.provider.RetryPolicy;
import dev.bellows.temporal.internal.WorkerSetup;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;

/** The worker setup the tests' workers use, for replaying their histories. */
final class TestSetups {

    private TestSetups() {
    }

    static WorkerSetup setup(ToolRegistry tools) {
        return new WorkerSetup(b -> b.model("mock"), RetryPolicy.defaults(), tools, Duration.ofSeconds(5),
                Duration.ofHours(1), Duration.ofHours(1));
    }
}
