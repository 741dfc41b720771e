package dev.bellows.eval.report;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;

/**
 * A run's events file (the JSONL of {@code bellows run --output jsonl}) as what a person reads:
 * the task, each step's thinking and text, each tool call with its arguments and its result or
 * error, plan changes, retries and the end. Whole blocks come from the {@code *_end} events;
 * the deltas count only for a block the run never finished (it stopped mid-answer), which is
 * shown as far as it came. A call is shown from its result, which carries its arguments; a
 * decoded call whose result never came is shown as such. Only files inside the report's folder
 * are read, links followed ({@link EventSource}).
 */
final class Transcript {

    sealed interface Entry {
    }

    record Task(String text) implements Entry {
    }

    record Step(int iteration) implements Entry {
    }

    record Thinking(String text, boolean cut) implements Entry {
    }

    record Message(String text, boolean cut) implements Entry {
    }

    /** A tool call; {@code result} and {@code error} both null: it never returned. */
    record ToolCall(String server, String name, JsonNode arguments, String result, String error) implements Entry {
    }

    record PlanItem(String description, String status) {
    }

    record Plan(List<PlanItem> steps) implements Entry {
    }

    /** Something the loop did besides answering: a retry, an approval, an answer without a call. */
    record Note(String text) implements Entry {
    }

    record End(String reason, String result) implements Entry {
    }

    /** What the transcript could not show: the file missing, outside the report's folder, or a line not JSON. */
    record Problem(String text) implements Entry {
    }

    private final List<Entry> entries = new ArrayList<>();
    private final Deque<ToolCall> decoded = new ArrayDeque<>();     // calls decoded, their results to come
    private String file = "";       // the events file's name, for the notes
    private Block thinking;
    private Block message;

    private Transcript() {
    }

    /**
     * The transcript of {@code events}, a reference relative to {@code reportDir} (a file, or a
     * block of its lines: see {@link EventSource}); a path that leaves that folder is not read (a
     * report names its own runs' events, nothing else).
     */
    static List<Entry> read(Path reportDir, String events) {
        try (EventSource source = new EventSource(reportDir)) {
            return read(source, events);
        }
    }

    /** The transcript of {@code events}, read through {@code source} (one for a whole page). */
    static List<Entry> read(EventSource source, String events) {
        return transcript(events, sink -> source.read(events, sink));
    }

    /** The transcript of {@code events} from its lines read ahead ({@link EventSource#readAhead}). */
    static List<Entry> read(EventSource.Lines lines, String events) {
        return transcript(events, lines::replay);
    }

    /** Where a transcript's lines come from: read now, or replayed. */
    private interface Lines {
        void into(EventSource.LineSink sink) throws EventSource.Unreadable;
    }

    private static List<Entry> transcript(String events, Lines lines) {
        Transcript transcript = new Transcript();
        transcript.file = BLOCK.matcher(events).replaceFirst("");
        try {
            lines.into((line, number) -> {
                if (!line.isBlank()) {
                    transcript.line(line, number, transcript.file);
                }
            });
        } catch (EventSource.Unreadable e) {
            transcript.entries.add(new Problem(e.getMessage()));
            return transcript.entries;
        }
        transcript.finish();
        return transcript.entries;
    }

    private static final java.util.regex.Pattern BLOCK = java.util.regex.Pattern.compile("#L\\d+-L\\d+$");

    /**
     * The deltas of a text block, which its end event repeats whole: kept as they are and parsed
     * only when the block never ends (the run stopped mid-answer, or a retry dropped it).
     */
    private static final String MESSAGE_DELTA = "{\"type\":\"message_content\"";
    private static final String THINKING_DELTA = "{\"type\":\"thinking_content\"";

    /**
     * A sub-agent's event (a configured agent's, run by one of the root agent's calls) carries
     * its parent's call; the member is written unescaped only as a member, never inside a text.
     */
    private static final String SUB_AGENT = "\"parent_call_id\":";
    private static final String LOOP_START = "{\"type\":\"loop_start\"";

    /** A sub-agent's work shows as the task it was given; its answer is the root's call's result, shown there. */
    private void subAgent(String line) {
        if (!line.startsWith(LOOP_START)) {
            return;
        }
        try {
            JsonNode event = ReportReader.MAPPER.readTree(line);
            entries.add(new Note("agent " + event.path("agent").asString("") + " works on: " + event.path("task").asString("")));
        } catch (JacksonException e) {
            entries.add(new Problem(file + ": a sub-agent's line is not JSON"));
        }
    }

    /**
     * The deltas of a tool call, most of a run's lines, which the call's end and result repeat
     * whole: known by their first characters ({@code type} comes first in EventJson's form) and
     * never parsed. A line written another way is parsed and ignored the same.
     */
    private static final List<String> SKIPPED = List.of("{\"type\":\"tool_call_content\"", "{\"type\":\"tool_call_argument\"",
            "{\"type\":\"tool_call_start\"", "{\"type\":\"tool_call_name\"", "{\"type\":\"section\"");

    private void line(String line, long number, String events) {
        if (line.contains(SUB_AGENT)) {
            subAgent(line);
            return;
        }
        for (String skipped : SKIPPED) {
            if (line.startsWith(skipped)) {
                return;
            }
        }
        if (line.startsWith(MESSAGE_DELTA)) {
            keep(message, line, number);
            return;
        }
        if (line.startsWith(THINKING_DELTA)) {
            keep(thinking, line, number);
            return;
        }
        JsonNode event;
        try {
            event = ReportReader.MAPPER.readTree(line);
        } catch (JacksonException e) {
            entries.add(new Problem(events + " line " + number + " is not JSON"));
            return;
        }
        if (event != null && event.isObject()) {
            event(event);
        }
    }

    private void event(JsonNode event) {
        String content = event.path("content").asString("");
        switch (event.path("type").asString("")) {
            case "loop_start" -> entries.add(new Task(event.path("task").asString("")));
            case "iteration_start" -> entries.add(new Step(event.path("iteration").asInt(0)));
            case "thinking_start" -> thinking = new Block(file);
            case "thinking_content" -> append(thinking, content);
            case "thinking_end" -> {
                thinking = null;
                if (!content.isBlank()) {
                    entries.add(new Thinking(content, false));
                }
            }
            case "message_start" -> message = new Block(file);
            case "message_content" -> append(message, content);
            case "message_end" -> {
                message = null;
                if (!content.isBlank()) {
                    entries.add(new Message(content, false));
                }
            }
            case "tool_call_end" -> {
                if (!event.has("error") && !"task_completion".equals(event.path("tool_name").asString(""))) {
                    decoded.add(new ToolCall(text(event, "server_name"), event.path("tool_name").asString(""),
                            event.get("arguments"), null, null));
                }
            }
            case "tool_result" -> {
                String name = event.path("tool_name").asString("");
                resolved(name);
                if (!"task_completion".equals(name)) {      // its result is the answer, shown at the end
                    entries.add(new ToolCall(text(event, "server_name"), name, event.get("arguments"),
                            event.path("result").asString(""), null));
                }
            }
            case "tool_result_error" -> {
                String name = text(event, "tool_name");
                if (name != null) {
                    resolved(name);
                }
                entries.add(new ToolCall(text(event, "server_name"), name, null, null, event.path("error").asString("")));
            }
            case "plan_update" -> {
                List<PlanItem> steps = new ArrayList<>();
                for (JsonNode step : event.path("steps")) {
                    steps.add(new PlanItem(step.path("description").asString(""), step.path("status").asString("")));
                }
                entries.add(new Plan(steps));
            }
            case "retry" -> {
                unfinished();
                entries.add(new Note("retry " + event.path("attempt").asInt(0) + " in " + event.path("delay_ms").asLong(0)
                        + " ms: " + event.path("reason").asString("")));
            }
            case "no_tool_call" -> entries.add(new Note("the answer called no tool"));
            case "approval_required" -> entries.add(new Note("waits for approval: " + event.path("tool_name").asString("")
                    + " " + event.path("arguments")));
            case "approval" -> entries.add(new Note(event.path("decision").asString("") + ": " + event.path("id").asString("")
                    + (event.path("reason").asString("").isEmpty() ? "" : " (" + event.path("reason").asString("") + ")")));
            case "loop_end" -> {
                finish();
                entries.add(new End(event.path("reason").asString(""), event.path("result").asString("")));
            }
            default -> {
                // the deltas of tool calls, sections: what the end events above already hold
            }
        }
    }

    private static void append(Block block, String content) {
        if (block != null) {
            block.text.append(content);
        }
    }

    /** A delta's line kept unparsed for its open block (none open: ignored, as a parsed one would be). */
    private static void keep(Block block, String line, long number) {
        if (block != null) {
            block.lines.add(line);
            block.numbers.add(number);
        }
    }

    /** An open text block: its deltas' lines, parsed into its text only if it never ends. */
    private static final class Block {
        final String events;
        final List<String> lines = new ArrayList<>();
        final List<Long> numbers = new ArrayList<>();
        final StringBuilder text = new StringBuilder();

        Block(String events) {
            this.events = events;
        }

        /** The text the deltas came to, or null when one of them is not JSON (noted in {@code problems}). */
        String text(List<Entry> problems) {
            for (int i = 0; i < lines.size(); i++) {
                try {
                    JsonNode delta = ReportReader.MAPPER.readTree(lines.get(i));
                    text.append(delta.path("content").asString(""));
                } catch (JacksonException e) {
                    problems.add(new Problem(events + " line " + numbers.get(i) + " is not JSON"));
                }
            }
            return text.toString();
        }
    }

    private static String text(JsonNode event, String field) {
        JsonNode value = event.get(field);
        return value == null || value.isNull() ? null : value.asString("");
    }

    private void resolved(String name) {
        for (Iterator<ToolCall> calls = decoded.iterator(); calls.hasNext(); ) {
            if (calls.next().name().equals(name)) {
                calls.remove();
                return;
            }
        }
    }

    /** Blocks the run left open (a retry discards the answer, or the run stopped), as far as they came. */
    private void unfinished() {
        String thought = thinking == null ? "" : thinking.text(entries);
        if (!thought.isEmpty()) {
            entries.add(new Thinking(thought, true));
        }
        String said = message == null ? "" : message.text(entries);
        if (!said.isEmpty()) {
            entries.add(new Message(said, true));
        }
        thinking = null;
        message = null;
    }

    private void finish() {
        unfinished();
        entries.addAll(decoded);
        decoded.clear();
    }
}
