package dev.bellows.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.LoopEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** A handoff reaches an AG-UI client as the custom event {@code bellows.handoff}, naming both agents. */
class AguiHandoffEventTest {

    @Test
    void aHandoffIsACustomEventNamingWhoTookOver() throws Exception {
        List<ObjectNode> sent = new ArrayList<>();
        AguiEvents events = new AguiEvents("thread", "run", false, 0, sent::add);
        events.started(List.of());

        events.on(new LoopEvent.Handoff("lead", "writer"));

        ObjectNode handoff = sent.getLast();
        assertThat(handoff.get("type").asString()).isEqualTo("CUSTOM");
        assertThat(handoff.get("name").asString()).isEqualTo(AguiEvents.HANDOFF_EVENT);
        assertThat(handoff.get("value").get("from").asString()).isEqualTo("lead");
        assertThat(handoff.get("value").get("to").asString()).isEqualTo("writer");
    }
}
