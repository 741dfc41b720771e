package dev.bellows.sessions.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.StoredSession;
import dev.bellows.provider.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code openExclusive}: one holder of a session at a time across stores (as across machines). */
class PostgresExclusiveTest {

    @Test
    void oneExclusiveHolderAtATimeAcrossStoresReleasedOnClose() {
        String url = EmbeddedPostgres.shared().newDatabase();
        try (PostgresSessionStore one = PostgresSessionStore.open(url, "postgres", null);
             PostgresSessionStore two = PostgresSessionStore.open(url, "postgres", null)) {
            try (StoredSession held = one.openExclusive("thread-1")) {
                assertThatThrownBy(() -> two.openExclusive("thread-1")).isInstanceOf(SessionInUseException.class)
                        .hasMessageContaining("thread-1");
                assertThatThrownBy(() -> one.openExclusive("thread-1")).isInstanceOf(SessionInUseException.class);
                try (StoredSession other = two.openExclusive("thread-2")) {
                    assertThat(other.name()).isEqualTo("thread-2");     // other sessions are not held up
                }
                held.append(List.of(Message.user("hello")));
                try (StoredSession reader = two.open("thread-1")) {     // plain opens are not kept out
                    assertThat(reader.turns()).hasSize(1);
                }
            }
            try (StoredSession next = two.openExclusive("thread-1")) {
                assertThat(next.turns()).hasSize(1);
            }
        }
    }
}
