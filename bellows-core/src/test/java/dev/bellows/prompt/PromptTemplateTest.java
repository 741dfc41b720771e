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
        for (String name : new String[] {"system_capabilities", "agent_loop", "chain_of_thought",
                "chain_of_thought_chat", "tool_calling_json", "tool_calling_xml", "tool_use_rules", "tool_catalog",
                "current_plan", "extra_context", "no_tool_call_reminder", "task_completion_json",
                "task_completion_xml"}) {
            PromptTemplate template = PromptTemplate.load(name);
            assertThat(template.text()).as(name).isNotBlank().doesNotEndWith("\n");
        }
        assertThatThrownBy(() -> PromptTemplate.load("nope")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nope.md is missing");
    }
}
