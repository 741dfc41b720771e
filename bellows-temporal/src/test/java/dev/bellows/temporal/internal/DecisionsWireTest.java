package dev.bellows.temporal.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The decide update's payload, as workflow histories keep it: older ones have no arguments. */
class DecisionsWireTest {

    @Test
    void aDecisionRecordedBeforeDecisionsCarriedArgumentsReadsAsTheModelsArguments() throws Exception {
        String recorded = "{\"decisions\":[{\"id\":\"call-1\",\"approved\":true,\"reason\":null},"
                + "{\"id\":\"call-2\",\"approved\":false,\"reason\":\"not there\"}]}";
        assertThat(Json.MAPPER.readValue(recorded, Decisions.class).decisions()).containsExactly(
                new Decisions.Decided("call-1", true, null, null),
                new Decisions.Decided("call-2", false, "not there", null));
    }

    @Test
    void editedArgumentsTravelAsTheirJsonText() throws Exception {
        Decisions sent = new Decisions(List.of(new Decisions.Decided("call-1", true, null, "{\"text\":\"abc\"}")));
        assertThat(Json.MAPPER.readValue(Json.MAPPER.writeValueAsString(sent), Decisions.class)).isEqualTo(sent);
    }
}
