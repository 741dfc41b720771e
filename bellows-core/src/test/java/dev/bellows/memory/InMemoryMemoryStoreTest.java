package dev.bellows.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InMemoryMemoryStoreTest {

    @Test
    void turnsComeBackWholeInOrderAsSnapshots() {
        InMemoryMemoryStore store = new InMemoryMemoryStore();
        List<Message> first = new ArrayList<>(List.of(Message.user("task")));
        store.append(first);
        store.append(List.of(Message.assistant("call"), Message.user("observation")));
        first.clear();

        List<List<Message>> snapshot = store.turns();
        store.append(List.of(Message.user("later")));

        assertThat(snapshot).containsExactly(List.of(Message.user("task")),
                List.of(Message.assistant("call"), Message.user("observation")));
        assertThat(store.turns()).hasSize(3);
        assertThatThrownBy(() -> snapshot.get(0).add(Message.user("x"))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> snapshot.add(List.of())).isInstanceOf(UnsupportedOperationException.class);

        store.clear();
        assertThat(store.turns()).isEmpty();
    }
}
