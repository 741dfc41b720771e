package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.internal.SchemaSummary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SchemaSummaryTest {

    enum Level { low, high }

    record Tag(String name) {}

    record Everything(String s, Optional<Integer> n, double d, boolean b, Level level, List<Level> levels,
            List<Tag> tags, Map<String, Integer> counts, Optional<Tag> main) {}

    @Test
    void aGeneratedSchemaInOneLine() {
        assertThat(SchemaSummary.of(JsonSchemas.forRecord(Everything.class))).isEqualTo(
                "{\"s\": string, \"n\"?: integer, \"d\": number, \"b\": boolean, \"level\": \"low\"|\"high\","
                        + " \"levels\": (\"low\"|\"high\")[], \"tags\": {\"name\": string}[],"
                        + " \"counts\": {string: integer}, \"main\"?: {\"name\": string}}");
    }

    @Test
    void handWrittenSchemas() {
        assertThat(SchemaSummary.of(Json.parse("{'type':['string','null']}"))).isEqualTo("string|null");
        assertThat(SchemaSummary.of(Json.parse("{'anyOf':[{'type':'integer'},{'const':'auto'}]}")))
                .isEqualTo("integer|\"auto\"");
        assertThat(SchemaSummary.of(Json.parse("{'type':'array','items':{'type':['integer','null']}}")))
                .isEqualTo("(integer|null)[]");
        assertThat(SchemaSummary.of(Json.parse("{'type':'object'}"))).isEqualTo("object");
        assertThat(SchemaSummary.of(Json.parse("{'type':'array'}"))).isEqualTo("array");
        assertThat(SchemaSummary.of(Json.parse("{}"))).isEqualTo("any");
        assertThat(SchemaSummary.of(Json.parse("{'properties':{'a b':{}}}"))).isEqualTo("{\"a b\"?: any}");
    }

    @Test
    void recursiveRefsEnd() {
        String summary = SchemaSummary.of(Json.parse("{'$ref':'#/$defs/n','$defs':{'n':{'type':'object',"
                + "'properties':{'kids':{'type':'array','items':{'$ref':'#/$defs/n'}}}}}}"));
        assertThat(summary).startsWith("{\"kids\"?: {\"kids\"?: ").contains("…");
    }
}
