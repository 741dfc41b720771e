package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.event.StreamEvent;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The demo's real tools, and that the fixed script's later turns assume what they really return. */
class DemoToolsTest {

    @Test
    void wordCountCountsTheBundledDocumentLikeWc() throws Exception {
        assertThat(DemoTools.count("bellows.txt", DemoTools.read("bellows.txt")))
                .isEqualTo(new DemoTools.WordCount("bellows.txt", 11, 120, 652));
        assertThat(DemoTools.count("x", "")).isEqualTo(new DemoTools.WordCount("x", 0, 0, 0));
        assertThat(DemoTools.count("x", "  one\ttwo\n\nthree  \n")).isEqualTo(new DemoTools.WordCount("x", 3, 3, 19));
    }

    @Test
    void anUnknownDocumentNamesTheOnesThatExist() {
        var arguments = JsonNodeFactory.instance.objectNode().put("document", "../pom.xml");
        assertThatThrownBy(() -> DemoTools.WORD_COUNT.call(ToolContext.of("local", "word_count"), arguments))
                .isInstanceOf(ToolException.class)
                .hasMessage("no document \"../pom.xml\"; available: bellows.txt");
    }

    /**
     * Runs every demo-tool call of the bundled script through the real tool and checks the
     * outcome against what the script says next: the script is fixed, the tools are real, so
     * changing either must keep them in step.
     */
    @Test
    void theScriptsCallsGetFromTheRealToolsWhatItsLaterTurnsAssume() throws Exception {
        List<MockTurn> turns = DemoCommand.script().turns();
        Map<String, Tool> tools = Map.of("calculator", DemoTools.CALCULATOR, "word_count", DemoTools.WORD_COUNT);
        List<String> outcomes = new ArrayList<>();
        for (MockTurn turn : turns) {
            StreamEvent.Complete complete = (StreamEvent.Complete) StreamProcessor.parse(
                    List.of(StreamChunk.message(turn.content())), StreamOptions.defaults()).getLast();
            for (var decoded : complete.toolCalls()) {
                assertThat(decoded).isInstanceOf(ToolCall.class);
                ToolCall call = (ToolCall) decoded;
                Tool tool = tools.get(call.toolName());
                if (tool == null) {
                    continue; // built-in: update_plan, task_completion
                }
                try {
                    ToolResult<?> result = tool.call(ToolContext.of("local", call.toolName()), call.arguments());
                    outcomes.add(call.toolName() + " -> " + result.output());
                } catch (ToolException e) {
                    outcomes.add(call.toolName() + " !! " + e.getMessage());
                }
            }
        }
        assertThat(outcomes).containsExactly(
                "word_count -> WordCount[document=bellows.txt, lines=11, words=120, characters=652]",
                "calculator !! unexpected \"×\" at position 11 of \"120 / 150 × 60\": write * to multiply"
                        + " (the calculator knows numbers, + - * / and parentheses)",
                "calculator -> 48");
        // What the turns after each call take for granted.
        assertThat(turns.get(1).content()).startsWith("bellows.txt has 120 words.");
        assertThat(turns.get(2).content()).contains("only understands * for multiplication, not ×");
        assertThat(turns.get(3).content()).startsWith("120 words at 150 words per minute take 48 seconds.")
                .contains("About 48 seconds: bellows.txt has 120 words, and (120 / 150) * 60 = 48");
    }
}
