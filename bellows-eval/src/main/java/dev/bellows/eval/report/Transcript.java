package dev.bellows.eval.report;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
 * are read, links followed.
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
    private StringBuilder thinking;
    private StringBuilder message;

    private Transcript() {
    }

    /**
     * The transcript of {@code events}, a path relative to {@code reportDir}; a path that leaves
     * that folder is not read (a report names its own runs' files, nothing else).
     */
    static List<Entry> read(Path reportDir, String events) {
        Transcript transcript = new Transcript();
        Path base = reportDir.toAbsolutePath().normalize();
        Path file = base.resolve(events).normalize();
        if (Path.of(events).isAbsolute() || !file.startsWith(base) || !inside(file, base)) {
            transcript.entries.add(new Problem("events file " + events + " is outside the report's folder: not read"));
            return transcript.entries;
        }
        try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int number = 0;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                number++;
                if (!line.isBlank()) {
                    transcript.line(line, number, events);
                }
            }
        } catch (NoSuchFileException e) {
            transcript.entries.add(new Problem("events file " + events + " not found"));
        } catch (IOException e) {
            transcript.entries.add(new Problem("events file " + events + " could not be read: " + e.getMessage()));
        }
        transcript.finish();
        return transcript.entries;
    }

    /** Whether {@code file}, links followed, is still under {@code base} (a missing file is, for the not-found note). */
    private static boolean inside(Path file, Path base) {
        try {
            return !Files.exists(file) || file.toRealPath().startsWith(base.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The deltas of a tool call, most of a run's lines, which the call's end and result repeat
     * whole: known by their first characters ({@code type} comes first in EventJson's form) and
     * never parsed. A line written another way is parsed and ignored the same.
     */
    private static final List<String> SKIPPED = List.of("{\"type\":\"tool_call_content\"", "{\"type\":\"tool_call_argument\"",
            "{\"type\":\"tool_call_start\"", "{\"type\":\"tool_call_name\"", "{\"type\":\"section\"");

    private void line(String line, int number, String events) {
        for (String skipped : SKIPPED) {
            if (line.startsWith(skipped)) {
                return;
            }
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
            case "thinking_start" -> thinking = new StringBuilder();
            case "thinking_content" -> append(thinking, content);
            case "thinking_end" -> {
                thinking = null;
                if (!content.isBlank()) {
                    entries.add(new Thinking(content, false));
                }
            }
            case "message_start" -> message = new StringBuilder();
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

    private static void append(StringBuilder block, String content) {
        if (block != null) {
            block.append(content);
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
        if (thinking != null && !thinking.isEmpty()) {
            entries.add(new Thinking(thinking.toString(), true));
        }
        if (message != null && !message.isEmpty()) {
            entries.add(new Message(message.toString(), true));
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
