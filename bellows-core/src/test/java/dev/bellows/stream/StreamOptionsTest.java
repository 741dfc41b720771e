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
}
