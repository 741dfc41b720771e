package dev.bellows.a2a.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.memory.ConversationMemory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A context takes one task at a time, and the next task does not trip over the last one's end. */
class ConversationsTest {

    @Test
    void theNextTaskOfAContextWaitsForTheTaskThatIsLettingGoInsteadOfBeingRefused() throws Exception {
        Conversations conversations = new Conversations(null, s -> ConversationMemory.builder().store(s).build(), Duration.ofSeconds(60));
        Conversations.Lease first = conversations.take("alice", "c1");
        CountDownLatch asking = new CountDownLatch(1);
        CompletableFuture<Conversations.Lease> next = CompletableFuture.supplyAsync(() -> {
            asking.countDown();
            return conversations.take("alice", "c1");
        });
        asking.await(60, TimeUnit.SECONDS);
        assertThat(next).isNotDone();                   // held while the first task has the context
        first.close();
        try (Conversations.Lease second = next.get(60, TimeUnit.SECONDS)) {
            assertThat(second.session()).isSameAs(first.session());     // the same conversation goes on
        }
    }

    @Test
    void aContextWhoseTaskKeepsRunningRefusesAnotherAndOtherContextsAreFree() {
        Conversations conversations = new Conversations(null, s -> ConversationMemory.builder().store(s).build(), Duration.ofMillis(50));
        try (Conversations.Lease running = conversations.take("alice", "c1");
             Conversations.Lease other = conversations.take("alice", "c2");
             Conversations.Lease someoneElses = conversations.take("bob", "c1")) {
            assertThatThrownBy(() -> conversations.take("alice", "c1"))
                    .isInstanceOfSatisfying(A2aException.class,
                            e -> assertThat(e.error()).isEqualTo(A2aError.UNSUPPORTED_OPERATION))
                    .hasMessageContaining("context c1 is running another task");
        }
        conversations.take("alice", "c1").close();       // free again once its task let go
    }
}
