package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.eval.report.Transcript.End;
import dev.bellows.eval.report.Transcript.Message;
import dev.bellows.eval.report.Transcript.Note;
import dev.bellows.eval.report.Transcript.Problem;
import dev.bellows.eval.report.Transcript.Step;
import dev.bellows.eval.report.Transcript.Task;
import dev.bellows.eval.report.Transcript.Thinking;
import dev.bellows.eval.report.Transcript.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TranscriptTest {

    @Test
    void aRunReadsAsTaskStepsThinkingTextCallsWithResultsAndTheAnswer(@TempDir Path dir) {
        Sample.copyTo(dir);
        List<Transcript.Entry> entries = Transcript.read(dir, "events/weather-oslo/run-1.jsonl");
        assertThat(entries).hasSize(7);
        assertThat(entries.get(0)).isEqualTo(new Task("What is the weather in Oslo?"));
        assertThat(entries.get(1)).isEqualTo(new Step(1));
        assertThat(entries.get(2)).isEqualTo(new Thinking("The user wants the weather. I call get_weather for Oslo.", false));
        assertThat(entries.get(3)).isEqualTo(new Message("Let me look that up.", false));
        ToolCall call = (ToolCall) entries.get(4);
        assertThat(call.name()).isEqualTo("get_weather");
        assertThat(call.arguments().toString()).isEqualTo("{\"city\":\"Oslo\",\"unit\":\"celsius\"}");
        assertThat(call.result()).isEqualTo("{\"temp_c\": 4, \"sky\": \"light snow\"}");
        assertThat(entries.get(5)).isEqualTo(new Step(2));      // task_completion's call is not shown: its result is the answer
        assertThat(entries.get(6)).isEqualTo(new End("task_completion", "It is 4 °C with light snow in Oslo."));
    }

    @Test
    void aRunThatStoppedMidAnswerShowsTheTextAsFarAsItCameAndTheCallsThatNeverReturned(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("cut.jsonl"), """
                {"type":"loop_start","task":"Add"}
                {"type":"iteration_start","iteration":1}
                {"type":"retry","attempt":2,"reason":"HTTP 503","delay_ms":500}
                {"type":"message_start"}
                {"type":"message_content","content":"Adding "}
                {"type":"message_content","content":"them"}
                {"type":"tool_call_end","content":"{}","server_name":"local","tool_name":"add","arguments":{"a":1}}
                not json
                {"type":"tool_result_error","error":"could not decode the call"}
                """);
        List<Transcript.Entry> entries = Transcript.read(dir, "cut.jsonl");
        assertThat(entries).containsExactly(new Task("Add"), new Step(1), new Note("retry 2 in 500 ms: HTTP 503"),
                new Problem("cut.jsonl line 8 is not JSON"), new ToolCall(null, null, null, null, "could not decode the call"),
                new Message("Adding them", true), entries.get(6));
        assertThat(entries.get(6)).isInstanceOfSatisfying(ToolCall.class, call -> {
            assertThat(call.name()).isEqualTo("add");
            assertThat(call.result()).isNull();
            assertThat(call.error()).isNull();
        });
    }

    /** An events file is outside input: members of the wrong type read as Jackson 2 read them (0, ""), never an exception. */
    @Test
    void membersOfTheWrongTypeReadAsZeroOrEmptyAndTheRestOfTheRunIsShown(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("odd.jsonl"), """
                {"type":"loop_start","task":"Add"}
                {"type":"iteration_start","iteration":"one"}
                {"type":"retry","attempt":{"n":2},"reason":"HTTP 503","delay_ms":"soon"}
                {"type":"tool_result_error","error":"could not decode the call","server_name":["local"]}
                """);
        assertThat(Transcript.read(dir, "odd.jsonl")).containsExactly(new Task("Add"), new Step(0),
                new Note("retry 0 in 0 ms: HTTP 503"), new ToolCall("", null, null, null, "could not decode the call"));
    }

    @Test
    void anEventsPathOutsideTheReportsFolderIsNotRead(@TempDir Path dir) throws Exception {
        Path report = Files.createDirectories(dir.resolve("out"));
        Files.writeString(dir.resolve("secret.jsonl"), "{\"type\":\"loop_start\",\"task\":\"secret\"}\n");
        assertThat(Transcript.read(report, "../secret.jsonl"))
                .containsExactly(new Problem("events file ../secret.jsonl is outside the report's folder: not read"));
        assertThat(Transcript.read(report, dir.resolve("secret.jsonl").toString())).hasSize(1).first().isInstanceOf(Problem.class);
        assertThat(Transcript.read(report, "missing.jsonl")).containsExactly(new Problem("events file missing.jsonl not found"));
        Files.createSymbolicLink(report.resolve("link.jsonl"), dir.resolve("secret.jsonl"));
        assertThat(Transcript.read(report, "link.jsonl"))
                .containsExactly(new Problem("events file link.jsonl is outside the report's folder: not read"));
    }

    @Test
    void aBlockOfOneFileIsReadForEachRunForwardAndAgainWhenAPageGoesBack(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("events.jsonl"), """
                {"type":"loop_start","task":"First"}
                {"type":"loop_end","reason":"task_completion","result":"one"}
                {"type":"loop_start","task":"Second"}
                {"type":"message_start"}
                {"type":"message_content","content":"Half "}
                {"type":"message_content","content":"said"}
                {"type":"loop_end","reason":"error","result":"broke"}
                """);
        try (EventSource source = new EventSource(dir)) {
            assertThat(Transcript.read(source, "events.jsonl#L1-L2")).containsExactly(new Task("First"),
                    new End("task_completion", "one"));
            assertThat(Transcript.read(source, "events.jsonl#L3-L7")).containsExactly(new Task("Second"),
                    new Message("Half said", true), new End("error", "broke"));
            assertThat(Transcript.read(source, "events.jsonl#L1-L1")).containsExactly(new Task("First"));
            assertThat(Transcript.read(source, "events.jsonl#L6-L9")).containsExactly(new End("error", "broke"),
                    new Problem("events file events.jsonl ends at line 7, before 9"));     // what there is, then what is not
            assertThat(Transcript.read(source, "../events.jsonl#L1-L2"))
                    .containsExactly(new Problem("events file ../events.jsonl is outside the report's folder: not read"));
        }
    }

    @Test
    void aSubAgentsWorkShowsAsItsTaskAndTheRootsCallWithItsAnswer(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("team.jsonl"), """
                {"type":"loop_start","task":"When does water boil?","agent":"lead"}
                {"type":"iteration_start","iteration":1,"agent":"lead"}
                {"type":"loop_start","task":"find the boiling point","agent":"researcher","parent_call_id":"call_1"}
                {"type":"iteration_start","iteration":1,"agent":"researcher","parent_call_id":"call_1"}
                {"type":"message_start","agent":"researcher","parent_call_id":"call_1"}
                {"type":"message_content","content":"Looking","agent":"researcher","parent_call_id":"call_1"}
                {"type":"tool_result","server_name":"local","tool_name":"task_completion","arguments":{},"result":"100 C","agent":"researcher","parent_call_id":"call_1"}
                {"type":"loop_end","reason":"task_completion","result":"100 C","agent":"researcher","parent_call_id":"call_1"}
                {"type":"tool_result","server_name":"local","tool_name":"researcher","arguments":{"task":"find the boiling point"},"result":"100 C","agent":"lead"}
                {"type":"loop_end","reason":"task_completion","result":"At 100 C.","agent":"lead"}
                """);
        List<Transcript.Entry> entries = Transcript.read(dir, "team.jsonl");
        assertThat(entries).hasSize(5);
        assertThat(entries.subList(0, 3)).containsExactly(new Task("When does water boil?"), new Step(1),
                new Note("agent researcher works on: find the boiling point"));
        assertThat(entries.get(3)).isInstanceOfSatisfying(ToolCall.class, call -> {
            assertThat(call.name()).isEqualTo("researcher");
            assertThat(call.result()).isEqualTo("100 C");
        });
        assertThat(entries.get(4)).isEqualTo(new End("task_completion", "At 100 C."));
    }
}
