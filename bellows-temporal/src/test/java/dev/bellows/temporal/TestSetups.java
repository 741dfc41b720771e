package dev.bellows.temporal;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.temporal.internal.WorkerSetup;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;
import java.util.function.Consumer;

/** The worker setup the tests' workers use, for replaying their histories. */
final class TestSetups {

    private TestSetups() {
    }

    static WorkerSetup setup(ToolRegistry tools) {
        return setup(tools, b -> b.model("mock"));
    }

    static WorkerSetup setup(ToolRegistry tools, Consumer<DefaultAgent.Builder> loop) {
        return new WorkerSetup(loop, RetryPolicy.defaults(), tools, Duration.ofSeconds(5),
                Duration.ofHours(1), Duration.ofHours(1));
    }
}
