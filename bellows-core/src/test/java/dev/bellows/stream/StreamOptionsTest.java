package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StreamOptionsTest {

    @Test
    void defaultsAreTheContractsTagNames() {
        StreamOptions defaults = StreamOptions.defaults();
        assertThat(defaults.thinkingTags()).containsExactly("thinking", "think");
        assertThat(defaults.toolTags()).containsExactly("tool", "tool_call");
        assertThat(defaults.thinkingOpen()).isFalse();
    }

    @Test
    void aBadNameIsAnIllegalArgumentThatSaysWhatToFix() {
        assertThatThrownBy(() -> StreamOptions.builder().toolTags("1x").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid tool tag name '1x'");
        assertThatThrownBy(() -> StreamOptions.builder().thinkingTags("tool").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both a thinking tag and a tool tag");
    }

    @Test
    void toBuilderKeepsEveryOption() {
        ToolSchemas schemas = ToolSchemas.of(java.util.Map.of("f",
                tools.jackson.databind.node.JsonNodeFactory.instance.objectNode()));
        StreamOptions options = StreamOptions.builder().thinkingTags("r").toolTags("c").thinkingOpen(true)
                .toolEndsThinking(true).dialect(Dialect.named("glm45")).toolSchemas(schemas).bellowsTagsToo(true).build();
        StreamOptions copy = options.toBuilder().build();
        assertThat(copy.thinkingTags()).containsExactly("r");
        assertThat(copy.toolTags()).containsExactly("c");
        assertThat(copy.thinkingOpen()).isTrue();
        assertThat(copy.toolEndsThinking()).isTrue();
        assertThat(copy.dialect().name()).isEqualTo("glm45");
        assertThat(copy.toolSchemas()).isSameAs(schemas);
        assertThat(copy.bellowsTagsToo()).isTrue();
        assertThat(copy.toString()).contains("dialect=glm45", "toolEndsThinking=true", "bellowsTagsToo=true");
        assertThat(StreamOptions.defaults().dialect()).isSameAs(Dialect.BELLOWS);
        assertThat(StreamOptions.defaults().bellowsTagsToo()).isFalse();
    }
}
