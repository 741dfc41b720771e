package dev.bellows.temporal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A patience that is not positive is refused when the agent is built, not found out when a
 * frontend goes silent. (That a given patience is the one a follower keeps is tested end to end
 * by bellows-cli's DurableRunsTest, through {@code --temporal-patience-seconds}.)
 */
class FrontendPatienceTest {

    @Test
    void aPatienceThatIsNotPositiveIsRefused() {
        // Stubs connect lazily: nothing is sent to the (closed) port.
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
                WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:9").build());
        try {
            DurableAgent.Builder builder = DurableAgent.builder(DurableAgent.client(stubs, "default"));
            assertThatThrownBy(() -> builder.frontendPatience(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
            assertThatThrownBy(() -> builder.frontendPatience(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
            builder.frontendPatience(Duration.ofMillis(1500)).build();
        } finally {
            stubs.shutdownNow();
        }
    }
}
