package dev.bellows.prompt.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
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
    void everyResourceLoadsWithoutATrailingLineBreak() throws IOException {
        // Every prompt text in the sources, so that one added or removed needs no list kept here.
        List<String> names;
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/dev/bellows/prompt/internal"))) {
            names = files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".md"))
                    .map(name -> name.substring(0, name.length() - ".md".length())).sorted().toList();
        }
        assertThat(names).contains("agent_loop", "tool_calling_json", "tool_calling_xml");
        for (String name : names) {
            PromptTemplate template = PromptTemplate.load(name);
            assertThat(template.text()).as(name).isNotBlank().doesNotEndWith("\n");
        }
        assertThatThrownBy(() -> PromptTemplate.load("nope")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nope.md is missing");
    }
}
