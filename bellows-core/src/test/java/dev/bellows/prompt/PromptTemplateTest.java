package dev.bellows.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PromptTemplateTest {

    @Test
    void placeholdersAreReplacedInOnePass() {
        PromptTemplate template = new PromptTemplate("t", "<{{tag}}>{{body}}</{{tag}}>");

        assertThat(template.render(Map.of("tag", "tool", "body", "{{tag}} stays")))
                .isEqualTo("<tool>{{tag}} stays</tool>");
    }

    @Test
    void aPlaceholderWithoutAValueFails() {
        PromptTemplate template = new PromptTemplate("t", "a {{missing}} b");

        assertThatThrownBy(() -> template.render(Map.of())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("t.md has {{missing}}");
    }

    @Test
    void textThatIsNoPlaceholderStaysAsWritten() {
        PromptTemplate template = new PromptTemplate("t", "{\"a\": {}} {{ x }} {{X}} $1 \\");

        assertThat(template.render()).isEqualTo("{\"a\": {}} {{ x }} {{X}} $1 \\");
    }

    @Test
    void everyResourceLoadsWithoutATrailingLineBreak() {
        for (String name : new String[] {"agent_loop", "chain_of_thought", "chain_of_thought_chat", "current_plan",
                "extra_context", "loop_end", "native_loop", "native_no_tool_call", "no_tool_call_reminder",
                "react_action_json", "react_action_yaml", "react_answer_ignored", "react_loop", "react_no_action",
                "server_name_json", "server_name_xml", "server_name_yaml", "task_completion_json",
                "task_completion_xml", "tool_calling_json", "tool_calling_xml"}) {
            PromptTemplate template = PromptTemplate.load(name);
            assertThat(template.text()).as(name).isNotBlank().doesNotEndWith("\n");
        }
        assertThatThrownBy(() -> PromptTemplate.load("nope")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nope.md is missing");
    }
}
