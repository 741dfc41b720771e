package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

    static List<SseEvent> parse(byte[] bytes) {
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        parser.feed(bytes, 0, bytes.length);
        parser.finish();
        return events;
    }

    static List<SseEvent> parse(String text) {
        return parse(text.getBytes(StandardCharsets.UTF_8));
    }

    static SseEvent message(String data) {
        return new SseEvent("message", data, null);
    }

    // The examples of the WHATWG standard, section "Event stream interpretation"

    @Test
    void standardExampleStockTicker() {
        assertThat(parse("data: YHOO\ndata: +2\ndata: 10\n\n")).containsExactly(message("YHOO\n+2\n10"));
    }

    @Test
    void standardExampleCommentsAndIds() {
        String stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n";
        assertThat(parse(stream)).containsExactly(
                new SseEvent("message", "first event", "1"),
                new SseEvent("message", "second event", null),   // "id" alone resets the last event ID
                new SseEvent("message", " third event", null));   // only one leading space is removed
    }

    @Test
    void standardExampleEmptyDataLines() {
        // "data" alone is a field with an empty value: the buffer gets "\n", so an event fires
        assertThat(parse("data\n\ndata\ndata\n\ndata:")).containsExactly(message(""), message("\n"));
    }

    @Test
    void standardExampleSpaceAfterColonIsOptional() {
        assertThat(parse("data:test\n\ndata: test\n\n")).containsExactly(message("test"), message("test"));
    }

    @Test
    void eventFieldSetsTheTypeForOneEventOnly() {
        String stream = "event: message_start\ndata: {\"a\":1}\n\ndata: plain\n\n";
        assertThat(parse(stream)).containsExactly(new SseEvent("message_start", "{\"a\":1}", null), message("plain"));
    }

    @Test
    void blockWithoutDataDispatchesNothingAndResetsTheType() {
        assertThat(parse("event: ping\n\ndata: x\n\n")).containsExactly(message("x"));
        assertThat(parse("id: 7\n\ndata: x\n\n")).containsExactly(new SseEvent("message", "x", "7"));
    }

    @Test
    void lastEventIdPersistsAcrossEvents() {
        assertThat(parse("id: a\ndata: 1\n\ndata: 2\n\n"))
                .containsExactly(new SseEvent("message", "1", "a"), new SseEvent("message", "2", "a"));
    }

    @Test
    void idWithNulIsIgnored() {
        assertThat(parse("id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n"))
                .containsExactly(new SseEvent("message", "a", "1"), new SseEvent("message", "b", "1"));
    }

    @Test
    void retryTakesDigitsOnly() {
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        byte[] bytes = "retry: 1500\n\nretry: 12x\n\nretry:\n\n".getBytes(StandardCharsets.UTF_8);
        parser.feed(bytes, 0, bytes.length);
        assertThat(parser.retryMillis()).hasValue(1500);
        assertThat(events).isEmpty();
    }

    @Test
    void unknownFieldsAndCommentsAreIgnored() {
        assertThat(parse(":ok\nfoo: bar\ndata: x\n: keep-alive\nDATA: y\n\n")).containsExactly(message("x"));
    }

    @Test
    void lineWithoutColonIsAFieldWithEmptyValue() {
        assertThat(parse("event\ndata\n\n")).containsExactly(message(""));
    }

    @Test
    void valueKeepsFurtherColonsAndSpaces() {
        assertThat(parse("data: a: b  \n\n")).containsExactly(message("a: b  "));
    }

    @Test
    void crLfAndCrLfLineEndsAreAllLineEnds() {
        assertThat(parse("data: a\r\ndata: b\rdata: c\n\r\n")).containsExactly(message("a\nb\nc"));
        assertThat(parse("data: a\r\rdata: b\n\n")).containsExactly(message("a"), message("b"));
    }

    @Test
    void crAtTheEndOfOneFeedAndLfAtTheStartOfTheNextAreOneLineEnd() {
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        feed(parser, "data: a\r");
        feed(parser, "\ndata: b\r");
        feed(parser, "\n");            // were this LF a line end of its own, "a\nb" would fire here
        assertThat(events).isEmpty();
        feed(parser, "\r");
        feed(parser, "\n");            // the rest of that CRLF, not another blank line
        feed(parser, "data: c\n\n");
        assertThat(events).containsExactly(message("a\nb"), message("c"));
    }

    @Test
    void byteOrderMarkAtTheVeryStartIsSkippedOnlyThere() {
        assertThat(parse("\uFEFFdata: a\n\n")).containsExactly(message("a"));
        // a second BOM is part of the field name: an unknown field
        assertThat(parse("\uFEFF\uFEFFdata: a\n\ndata: b\n\n")).containsExactly(message("b"));
        assertThat(parse("data: a\n\n\uFEFFdata: b\n\n")).containsExactly(message("a"));
    }

    @Test
    void byteOrderMarkSplitAcrossFeeds() {
        byte[] bytes = "\uFEFFdata: a\n\n".getBytes(StandardCharsets.UTF_8);
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        for (byte b : bytes) {
            parser.feed(new byte[] {b}, 0, 1);
        }
        assertThat(events).containsExactly(message("a"));
    }

    @Test
    void multiByteCharacterSplitAcrossFeeds() {
        byte[] bytes = "data: h\u00e9llo \u20ac \uD83D\uDE00\n\n".getBytes(StandardCharsets.UTF_8);
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        for (byte b : bytes) {
            parser.feed(new byte[] {b}, 0, 1);
        }
        assertThat(events).containsExactly(message("h\u00e9llo \u20ac \uD83D\uDE00"));
    }

    @Test
    void malformedUtf8BecomesReplacementCharacter() {
        byte[] bytes = {'d', 'a', 't', 'a', ':', ' ', 'a', (byte) 0xFF, 'b', (byte) 0xE2, (byte) 0x82, '\n', '\n'};
        assertThat(parse(bytes)).containsExactly(message("a\uFFFDb\uFFFD"));
    }

    @Test
    void endOfInputDropsAnUnterminatedEvent() {
        assertThat(parse("data: complete\n\ndata: incomplete\n")).containsExactly(message("complete"));
        assertThat(parse("data: incomplete")).isEmpty();
    }

    @Test
    void pendingEventIsReported() {
        SseParser parser = new SseParser(event -> { });
        feed(parser, "data: a\n");
        assertThat(parser.hasPendingEvent()).isTrue();
        feed(parser, "\n");
        assertThat(parser.hasPendingEvent()).isFalse();
    }

    @Test
    void feedHonoursOffsetAndLength() {
        byte[] bytes = "XXdata: a\n\nYY".getBytes(StandardCharsets.UTF_8);
        List<SseEvent> events = new ArrayList<>();
        new SseParser(events::add).feed(bytes, 2, bytes.length - 4);
        assertThat(events).containsExactly(message("a"));
    }

    @Test
    void openAiStreamWithDone() {
        String stream = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n";
        assertThat(parse(stream)).extracting(SseEvent::data)
                .containsExactly("{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}", "[DONE]");
    }

    @Test
    void longLinesAreLinear() {
        String big = "x".repeat(1_000_000);
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        byte[] bytes = ("data: " + big + "\n\n").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i += 7) {
            parser.feed(bytes, i, Math.min(7, bytes.length - i));
        }
        assertThat(events).singleElement().satisfies(event -> assertThat(event.data()).hasSize(1_000_000));
    }

    private static void feed(SseParser parser, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        parser.feed(bytes, 0, bytes.length);
    }
}
