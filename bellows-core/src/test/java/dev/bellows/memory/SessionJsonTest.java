package dev.bellows.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.memory.internal.SessionJson;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stored forms of plans and metadata, and the rule for session names. */
class SessionJsonTest {

    @Test
    void aPlanIsStoredAsTheUpdatePlanToolTakesIt() {
        Plan plan = new Plan(List.of(new PlanStep("Read \"it\"", PlanStatus.COMPLETED),
                new PlanStep("Fix", PlanStatus.IN_PROGRESS), new PlanStep("Ship", PlanStatus.PENDING)));
        String json = SessionJson.planToJson(plan);
        assertThat(json).isEqualTo("{\"steps\":[{\"description\":\"Read \\\"it\\\"\",\"status\":\"completed\"},"
                + "{\"description\":\"Fix\",\"status\":\"in_progress\"},{\"description\":\"Ship\",\"status\":\"pending\"}]}");
        assertThat(SessionJson.planFromJson(json)).isEqualTo(plan);
        assertThat(SessionJson.planFromJson(SessionJson.planToJson(Plan.empty()))).isEqualTo(Plan.empty());
    }

    @Test
    void damagedStoredTextIsASessionStoreExceptionNotACrash() {
        assertThatThrownBy(() -> SessionJson.planFromJson("{\"steps\": [{\"description\": \"x\", \"status\": \"weird\"}]}"))
                .isInstanceOf(SessionStoreException.class).hasMessageContaining("stored plan is not a plan");
        assertThatThrownBy(() -> SessionJson.planFromJson("not json")).isInstanceOf(SessionStoreException.class);
        assertThatThrownBy(() -> SessionJson.metadataFromJson("[1, 2]")).isInstanceOf(SessionStoreException.class);
        assertThatThrownBy(() -> SessionJson.metadataFromJson("{\"k\": null}")).isInstanceOf(SessionStoreException.class);
    }

    @Test
    void mediaAreKeptWithTheirTypeAndBase64Data() {
        var message = dev.bellows.provider.Message.toolResult("call_1", "(1 image attached: image/png, 3 bytes)",
                java.util.List.of(dev.bellows.tool.Media.image(new byte[] {1, 2, (byte) 0xFF}, "image/png")));
        String parts = SessionJson.nativePartsToJson(message);
        assertThat(parts).isEqualTo("{\"tool_call_id\":\"call_1\",\"media\":[{\"media_type\":\"image/png\",\"data\":\"AQL/\"}]}");
        assertThat(SessionJson.message(message.role(), message.content(), parts)).isEqualTo(message);
        assertThatThrownBy(() -> SessionJson.message(message.role(), "x",
                "{\"tool_call_id\":\"c\",\"media\":[{\"media_type\":\"image/png\",\"data\":\"not base64!\"}]}"))
                .isInstanceOf(SessionStoreException.class).hasMessageContaining("media");
    }

    @Test
    void metadataIsAFlatObjectWithSortedKeys() {
        assertThat(SessionJson.metadataToJson(Map.of("model", "m", "a", "ü"))).isEqualTo("{\"a\":\"ü\",\"model\":\"m\"}");
        assertThat(SessionJson.metadataFromJson("{\"a\":\"ü\",\"model\":\"m\"}")).isEqualTo(Map.of("model", "m", "a", "ü"));
        Map<String, String> nullKey = new HashMap<>();
        nullKey.put(null, "v");
        assertThatThrownBy(() -> SessionJson.checkMetadata(nullKey)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sessionNamesAreSafeAsFileNames() {
        for (String good : new String[] {"a", "my-task", "v1.2_final", "A".repeat(100), "0"}) {
            assertThat(SessionNames.check(good)).isEqualTo(good);
        }
        for (String bad : new String[] {"", ".", "..", "../x", "a/b", "a\\b", "-rf", ".hidden", "sp ace", "é",
                "A".repeat(101), "tab\t"}) {
            assertThatThrownBy(() -> SessionNames.check(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("letters, digits");
        }
        assertThatThrownBy(() -> SessionNames.check("evil\u001b[2Jname")).hasMessageNotContaining("\u001b");
    }
}
