package dev.bellows.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two tools offered natively must not share a name, however many there are. */
class ChatRequestToolsTest {

    private static List<ToolSpec> tools(int count) {
        List<ToolSpec> tools = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tools.add(new ToolSpec("tool_" + i, "tool number " + i, JsonNodeFactory.instance.objectNode().put("type", "object")));
        }
        return tools;
    }

    private static ChatRequest request(List<ToolSpec> tools) {
        return ChatRequest.builder().model("m").message(Message.user("hi")).tools(tools).build();
    }

    @Test
    void distinctNamesAreOfferedAsGiven() {
        for (int count : new int[] {0, 1, 2, 16, 17, 40}) {
            assertThat(request(tools(count)).tools()).hasSize(count);
        }
    }

    @Test
    void aRepeatedNameIsRefusedInShortAndLongLists() {
        for (int count : new int[] {2, 5, 16, 17, 40}) {
            List<ToolSpec> tools = tools(count);
            tools.add(tools.get(count / 2));
            assertThatThrownBy(() -> request(tools)).as("%d tools", count + 1)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same name");
        }
    }
}
