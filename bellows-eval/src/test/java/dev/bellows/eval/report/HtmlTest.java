package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The page's builder: parts written out one after another, text escaped, JSON lines dropped and escaped. */
class HtmlTest {

    @Test
    void writeToGivesWhatTakeGivesAndLeavesTheBuilderEmptyForTheNextPart() throws Exception {
        Html reused = new Html();
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        java.io.Writer writer = new java.io.OutputStreamWriter(written, StandardCharsets.UTF_8);
        StringBuilder expected = new StringBuilder();
        // parts shorter and longer than the 8,192-character window, ASCII, Latin-1 and wider text, a pair split at the window's end
        String[] parts = {"<tr>" + "a".repeat(100), "x".repeat(8191) + "\uD83D\uDE00" + "y".repeat(9000), "caf\u00e9 \u2014 <b>",
                "z".repeat(20_000), ""};
        for (String part : parts) {
            Html fresh = new Html();
            fresh.raw(part).text(part);
            expected.append(fresh.take());
            reused.raw(part).text(part);
            reused.writeTo(writer);
            assertThat(reused.length()).isZero();
        }
        writer.flush();
        assertThat(written.toString(StandardCharsets.UTF_8)).isEqualTo(expected.toString());
    }

    @Test
    void textEscapesWhatCouldEndATextNodeOrAnAttributeAndKeepsTheRest() {
        assertThat(new Html().text("a<b>&\"c\"'d'\0e \u00e9\u2014").take()).isEqualTo("a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;\uFFFDe \u00e9\u2014");
        assertThat(new Html().text("plain").text(null).text("").take()).isEqualTo("plain");
        assertThat(Html.escape("<&>")).isEqualTo("&lt;&amp;&gt;");
    }

    @Test
    void jsonDropsTheLinesThatStartAsGivenKeepingTheirNumbersAndEscapesTheRest() {
        Html.LineStarts dropped = new Html.LineStarts(List.of("{\"type\":\"tool_call_content\"", "{\"type\":\"tool_call_name\"",
                "{\"type\":\"section\""));
        String lines = """
                {"type":"message_content","content":"</script><!--"}
                {"type":"tool_call_content","content":"x"}
                {"type":"tool_call_end","content":"\u2028\u2029"}
                {"type":"section","name":"a"}
                {"type":"tool_call_name"}
                {"type":"tool_call_nam"}
                {"type":"tool"}
                """;
        assertThat(new Html().json(lines, dropped).take()).isEqualTo("""
                {"type":"message_content","content":"\\u003c/script>\\u003c!--"}

                {"type":"tool_call_end","content":"\\u2028\\u2029"}


                {"type":"tool_call_nam"}
                {"type":"tool"}
                """);
        // without U+2028 or U+2029 (another way through the text): a dropped line's '<' and the next kept line's
        String latin1 = """
                {"type":"section","name":"<a>"}
                {"type":"message_end","content":"a<b<c"}
                {"type":"tool_call_name","tool_name":"<"}

                <<
                {"type":"x"}""";
        assertThat(new Html().json(latin1, dropped).take()).isEqualTo("""

                {"type":"message_end","content":"a\\u003cb\\u003cc"}


                \\u003c\\u003c
                {"type":"x"}""");
        assertThat(new Html().json("<\n<", dropped).take()).isEqualTo("\\u003c\n\\u003c");
        // a last line without a break, dropped, and nothing to drop
        assertThat(new Html().json("{\"type\":\"section\"}", dropped).take()).isEmpty();
        assertThat(new Html().json("{\"type\":\"section\"}\n", new Html.LineStarts(List.of())).take()).isEqualTo("{\"type\":\"section\"}\n");
    }

    @Test
    void aBlockReferenceIsReadAsThePatternOnceReadIt() {
        Pattern block = Pattern.compile("(.+)#L(\\d{1,12})-L(\\d{1,12})");
        List<String> references = List.of("events.jsonl#L85-L167", "events.jsonl#L1-L1", "a#L1-L2", "#L1-L2", "x#L-L2", "x#L1-L",
                "x#L1-2", "x#1-L2", "events/case/run-1.jsonl", "a#L1-L2#L3-L4", "a#L123456789012-L123456789012",
                "a#L1234567890123-L1", "a#L1-L1234567890123", "a\nb#L1-L2", "a\u2028#L1-L2", "a b#L007-L010", "a#L1-L2 ", "a#L\u0661-L2",
                "ab", "");
        for (String reference : references) {
            Matcher matcher = block.matcher(reference);
            EventSource.Lines lines = EventSource.Lines.of(reference);
            if (matcher.matches()) {
                assertThat(lines).as(reference).isEqualTo(new EventSource.Lines(matcher.group(1), Long.parseLong(matcher.group(2)),
                        Long.parseLong(matcher.group(3))));
            } else {
                assertThat(lines).as(reference).isNull();
            }
        }
    }
}
