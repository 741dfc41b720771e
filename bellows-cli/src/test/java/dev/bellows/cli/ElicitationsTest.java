package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.mcp.ElicitationHandler;
import dev.bellows.mcp.ElicitationRequest;
import dev.bellows.mcp.ElicitationResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --elicitation}: the modes, and {@code ask} field by field, checked against the requested schema. */
class ElicitationsTest {

    private static final ObjectNode SCHEMA = (ObjectNode) Cli.json("""
            {"type": "object", "properties": {
              "name": {"type": "string", "title": "Name", "description": "Who you are", "minLength": 2},
              "age": {"type": "integer", "minimum": 0, "default": 30},
              "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
              "verified": {"type": "boolean"},
              "note": {"type": "string"}},
             "required": ["name", "verified"]}
            """);

    private static ElicitationRequest request() {
        return new ElicitationRequest("people", "Tell me about you\u001b[2J", SCHEMA);
    }

    /** Answers the prompts from the list; records the prompts. */
    private static final class Script implements Elicitations.Lines {
        final Deque<String> answers;
        final StringBuilder prompts = new StringBuilder();

        Script(String... answers) {
            this.answers = new ArrayDeque<>(List.of(answers));
        }

        @Override
        public String read(String prompt) throws Elicitations.Cancelled {
            prompts.append(prompt).append('\n');
            String next = answers.poll();
            if ("^C".equals(next)) {
                throw new Elicitations.Cancelled();
            }
            return next;
        }
    }

    @Test
    void ask_goes_field_by_field_takes_defaults_on_enter_and_asks_again_until_an_answer_fits_the_schema() throws Exception {
        Script lines = new Script("y", "", "J", "Jo", "-1", "x", "41", "pending", "", "maybe", "yes", "");
        StringWriter shown = new StringWriter();
        ElicitationResult result = Elicitations.handler(Elicitations.Mode.ASK, () -> lines, new PrintWriter(shown))
                .elicit(request());
        assertThat(result).isInstanceOf(ElicitationResult.Accept.class);
        assertThat(((ElicitationResult.Accept) result).content()).isEqualTo(Cli.json(
                "{\"name\": \"Jo\", \"age\": 41, \"status\": \"active\", \"verified\": true}"));
        assertThat(shown.toString()).contains("MCP server \"people\" asks: Tell me about you^[[2J")
                .contains("an answer is required").contains("at least 2 characters").contains("at least 0")
                .contains("expected a number").contains("choose from: active, inactive").contains("answer y or n");
        assertThat(lines.prompts.toString()).contains("Answer it? [Y/n]")
                .contains("  Name (string, required) Who you are: ")
                .contains("  age (integer) [30]: ")
                .contains("  status (string: active, inactive) [active]: ")
                .contains("  verified (boolean, required): ");
    }

    @Test
    void n_declines_the_end_of_input_declines_and_ctrl_c_cancels() throws Exception {
        StringWriter shown = new StringWriter();
        assertThat(Elicitations.handler(Elicitations.Mode.ASK, () -> new Script("n"), new PrintWriter(shown)).elicit(request()))
                .isInstanceOf(ElicitationResult.Decline.class);
        assertThat(Elicitations.handler(Elicitations.Mode.ASK, () -> new Script("y", "Jo"), new PrintWriter(shown))
                .elicit(request())).isInstanceOf(ElicitationResult.Decline.class);
        assertThat(Elicitations.handler(Elicitations.Mode.ASK, () -> new Script("y", "^C"), new PrintWriter(shown))
                .elicit(request())).isInstanceOf(ElicitationResult.Cancel.class);
    }

    @Test
    void defaults_accepts_with_every_default_and_declines_when_a_required_field_has_none() throws Exception {
        assertThat(ElicitationHandler.DEFAULTS.elicit(request())).isInstanceOf(ElicitationResult.Decline.class);
        ObjectNode optional = SCHEMA.deepCopy();
        optional.remove("required");
        ElicitationResult accepted = ElicitationHandler.DEFAULTS.elicit(new ElicitationRequest("people", "", optional));
        assertThat(((ElicitationResult.Accept) accepted).content()).isEqualTo(Cli.json(
                "{\"age\": 30, \"status\": \"active\"}"));
        assertThat(request().withDefaults((ObjectNode) Cli.json("{\"name\": \"Jo\", \"age\": 5}")))
                .isEqualTo(Cli.json("{\"name\": \"Jo\", \"age\": 5, \"status\": \"active\"}"));
    }

    @Test
    void the_mode_comes_from_the_flag_the_variable_the_config_file_else_the_terminal() throws Exception {
        Host none = new Host(Map.of(), java.nio.file.Path.of("."), Interrupts.NONE, false);
        ConfigFile file = ConfigFile.none(java.nio.file.Path.of("."));
        assertThat(Elicitations.mode(none, null, file, true)).isEqualTo(Elicitations.Mode.ASK);
        assertThat(Elicitations.mode(none, null, file, false)).isEqualTo(Elicitations.Mode.DECLINE);
        assertThat(Elicitations.mode(none, "defaults", file, false)).isEqualTo(Elicitations.Mode.DEFAULTS);
        Host env = new Host(Map.of("BELLOWS_ELICITATION", "decline"), java.nio.file.Path.of("."), Interrupts.NONE, false);
        assertThat(Elicitations.mode(env, null, file, true)).isEqualTo(Elicitations.Mode.DECLINE);
        assertThatThrownBy(() -> Elicitations.mode(none, "maybe", file, true)).isInstanceOf(UsageException.class)
                .hasMessage("--elicitation: unknown elicitation mode (ask, defaults or decline)");
    }
}
