package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.annotation.Tool;
import dev.bellows.tool.annotation.ToolParam;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Tools from annotated methods: a LangChain4j-style class moved over by changing its imports. */
class MethodToolsTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    enum Units { CELSIUS, FAHRENHEIT }

    record Place(String city, String country) {
    }

    /** As it would be written for LangChain4j ({@code @Tool("...")}, {@code @P("...")}), imports changed. */
    static class WeatherTools {
        @Tool("The weather forecast for a city")
        public String forecast(@ToolParam("the city's name") String city, Optional<Integer> days, Units units) {
            return city + ": sunny for " + days.orElse(1) + " day(s), in " + units;
        }

        @Tool(name = "bookmark", description = "Keeps a place with tags")
        public ToolResult<Place> keep(Place place, @ToolParam(value = "labels", required = false) List<String> tags,
                                      ToolContext context) {
            return ToolResult.of(new Place(place.city() + (tags == null ? "" : " " + tags), context.toolName()));
        }

        @Tool("Fails on purpose")
        public String broken() {
            throw new IllegalStateException("no data");
        }

        public String notATool() {
            return "";
        }
    }

    static ObjectNode json(String text) throws Exception {
        return (ObjectNode) JSON.readTree(text);
    }

    @Test
    void every_annotated_method_becomes_a_tool_with_a_schema_from_its_parameters() throws Exception {
        ToolRegistry registry = new ToolRegistry().registerMethods(new WeatherTools());
        assertThat(registry.tools()).extracting(RegisteredTool::toolName).containsExactly("bookmark", "broken", "forecast");

        dev.bellows.tool.Tool forecast = registry.lookup("local", "forecast");
        assertThat(forecast.description()).isEqualTo("The weather forecast for a city");
        assertThat(forecast.inputSchema()).isEqualTo(json("""
                {"type": "object", "properties": {
                   "city": {"type": "string", "description": "the city's name"},
                   "days": {"type": "integer"},
                   "units": {"type": "string", "enum": ["CELSIUS", "FAHRENHEIT"]}},
                 "required": ["city", "units"], "additionalProperties": false}"""));
        JsonNode keep = registry.lookup("local", "bookmark").inputSchema();
        assertThat(keep.get("required")).isEqualTo(JSON.readTree("[\"place\"]"));
        assertThat(keep.at("/properties/place/properties/city/type").asString()).isEqualTo("string");
        assertThat(keep.at("/properties/tags/description").asString()).isEqualTo("labels");
    }

    @Test
    void arguments_are_checked_coerced_and_bound_and_errors_go_to_the_model() throws Exception {
        ToolRegistry registry = new ToolRegistry().registerMethods(new WeatherTools());
        ToolChainResult result = new ToolChain(registry).execute(List.of(
                new ToolCall("local", "forecast", json("{\"city\": \"Oslo\", \"units\": \"CELSIUS\"}")),
                new ToolCall("local", "forecast", json("{\"city\": \"Oslo\", \"days\": 3, \"units\": \"CELSIUS\"}")),
                new ToolCall("local", "forecast", json("{\"city\": \"Oslo\", \"units\": \"KELVIN\"}")),
                new ToolCall("local", "bookmark", json("{\"place\": {\"city\": \"Oslo\", \"country\": \"NO\"},"
                        + " \"tags\": [\"home\"]}")),
                new ToolCall("local", "bookmark", json("{\"place\": {\"city\": \"Bergen\", \"country\": \"NO\"}}")),
                new ToolCall("local", "broken", json("{}"))));
        assertThat(result.outcomes()).extracting(o -> o.text()).satisfies(texts -> {
            assertThat(texts.get(0)).isEqualTo("Oslo: sunny for 1 day(s), in CELSIUS");
            assertThat(texts.get(1)).isEqualTo("Oslo: sunny for 3 day(s), in CELSIUS");
            assertThat(texts.get(2)).contains("units").contains("CELSIUS");
            assertThat(texts.get(3)).contains("\"city\":\"Oslo [home]\"", "\"country\":\"bookmark\"");
            assertThat(texts.get(4)).contains("\"city\":\"Bergen\"");
            assertThat(texts.get(5)).isEqualTo("tool broken failed: IllegalStateException: no data");
        });
        assertThat(result.failed()).hasSize(2);
    }

    @Test
    void methods_that_cannot_be_tools_are_refused_with_what_to_change() {
        class Hidden {
            @Tool("Hidden")
            String secret() {
                return "";
            }
        }
        class Undescribed {
            @Tool
            public String nothing() {
                return "";
            }
        }
        class Untyped {
            @Tool("Takes anything")
            public String any(Object value) {
                return "";
            }
        }
        assertThatThrownBy(() -> MethodTools.of(new Hidden())).hasMessageContaining("is not public");
        assertThatThrownBy(() -> MethodTools.of(new Undescribed())).hasMessageContaining("has no description");
        assertThatThrownBy(() -> MethodTools.of(new Untyped()))
                .hasMessageContaining("method Untyped.any, parameter value").hasMessageContaining("Object");
        assertThatThrownBy(() -> MethodTools.of("no tools here")).hasMessageContaining("has no public method annotated");
    }
}
