package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.ToolRegistryTest.FakeSource;
import dev.bellows.tool.ToolRegistryTest.FakeTool;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A broken input schema is found when a tool is registered or listed, never in a call. */
class ToolSchemaRegistrationTest {

    /** A tool with whatever schema a stranger sent. */
    record StrangerTool(String name, ObjectNode inputSchema) implements Tool {

        @Override
        public String description() {
            return "a tool from somewhere else";
        }

        @Override
        public ObjectNode inputSchema() {
            return inputSchema.deepCopy();
        }

        @Override
        public ToolResult<?> call(ToolContext context, JsonNode arguments) {
            return ToolResult.of("called");
        }
    }

    private static final ObjectNode BROKEN = Json.object("{'type':'object','properties':{'n':{'$ref':'#/$defs/gone'}}}");

    @Test
    void aLocalToolWithABrokenSchemaIsRefusedAtRegistration() {
        ToolRegistry registry = new ToolRegistry();
        assertThatThrownBy(() -> registry.register(new StrangerTool("count", BROKEN)))
                .isInstanceOf(InvalidSchemaException.class)
                .hasMessage("tool \"count\" on server \"local\" cannot be registered: the tool's JSON Schema refers"
                        + " to #/$defs/gone, which it does not define (under $defs or definitions); the reference is at"
                        + " /properties/n");
        assertThat(registry.tools()).isEmpty();
    }

    @Test
    void aSourcesToolWithABrokenSchemaIsLeftOutAndItsSiblingsWork() throws Exception {
        FakeSource source = new FakeSource("stranger", "echo");
        List<Tool> tools = new ArrayList<>(source.tools);
        tools.add(new StrangerTool("typo", Json.object("{'type':'object','properties':{'n':{'type':'integr'}}}")));
        source.tools = tools;
        try (ToolRegistry registry = new ToolRegistry().addSource(source)) {
            assertThat(registry.sourceFailures()).isEmpty();
            assertThat(registry.tools()).extracting(RegisteredTool::toolName).containsExactly("echo");
            assertThat(registry.toolFailures()).singleElement().satisfies(failure -> {
                assertThat(failure.serverName()).isEqualTo("stranger");
                assertThat(failure.toolName()).isEqualTo("typo");
                assertThat(failure.reason()).startsWith("its input schema is broken: the tool's JSON Schema is not"
                        + " valid JSON Schema 2020-12: at /properties/n/type: expected one of \"array\", \"boolean\"");
            });
            assertThatThrownBy(() -> registry.lookup("stranger", "typo")).isInstanceOf(ToolException.class)
                    .hasMessageStartingWith("tool \"typo\" on server \"stranger\" cannot be called: its input schema is"
                            + " broken: ");
            assertThat(registry.lookup("stranger", "echo")).isInstanceOf(FakeTool.class);
            assertThat(registry.argumentSchema("stranger", "echo")).isPresent();
            assertThat(registry.argumentSchema("stranger", "typo")).isEmpty();
        }
    }

    @Test
    void theRegistryCompilesEachSchemaOnceAndReusesATypedToolsOwn() {
        record Query(String city) {
        }
        TypedTool<Query, ?> typed = TypedTool.builder("weather", Query.class).description("weather")
                .handler((context, query) -> ToolResult.of(query.city())).build();
        ToolRegistry registry = new ToolRegistry().register(typed).register(new FakeTool("echo"));
        assertThat(registry.argumentSchema("local", "weather")).containsSame(typed.argumentSchema());
        ArgumentSchema echo = registry.argumentSchema("local", "echo").orElseThrow();
        assertThat(registry.argumentSchema("local", "echo")).containsSame(echo);
    }
}
