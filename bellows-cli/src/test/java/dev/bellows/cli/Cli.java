package dev.bellows.cli;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Runs {@code bellows} in-process with its own standard streams. */
final class Cli {

    static final ObjectMapper MAPPER = Jackson.JSON;

    private Cli() {
    }

    /** What one run did: exit status, standard output, standard error. */
    record Run(int status, String out, String err) {

        /** Standard output, one JSON value per line. */
        List<JsonNode> outJson() {
            List<JsonNode> values = new ArrayList<>();
            for (String line : out.split("\n")) {
                if (!line.isEmpty()) {
                    values.add(json(line));
                }
            }
            return values;
        }
    }

    static Run run(String stdin, String... args) {
        return run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), args);
    }

    static Run run(InputStream stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(stdin, out, err, false).execute(args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs with the given host: environment, working directory, interrupts, terminal. */
    static Run run(Host host, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false, host)
                .execute(args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Run run(InputStream stdin, OutputStream out, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(stdin, out, err, false).execute(args);
        return new Run(status, "", err.toString(StandardCharsets.UTF_8));
    }

    static JsonNode json(String text) {
        return MAPPER.readTree(text);
    }

    /**
     * Events with the freedom the contract allows taken out, so tests can compare them
     * exactly: consecutive {@code *_content} deltas of the same type and chunk are merged
     * (how a chunk's text is split into deltas is free), and {@code tool_call_name} is moved
     * to just after the tool block's start (it may sit anywhere among the deltas of its chunk).
     */
    static List<JsonNode> normalized(List<JsonNode> events) {
        List<JsonNode> result = new ArrayList<>();
        int toolStart = -1;
        for (JsonNode event : events) {
            String type = event.get("type").asString();
            if (type.equals("tool_call_start")) {
                toolStart = result.size();
            }
            if (type.equals("tool_call_name")) {
                result.add(toolStart + 1, event);
                continue;
            }
            JsonNode last = result.isEmpty() ? null : result.get(result.size() - 1);
            if (type.endsWith("_content") && last != null
                    && last.get("type").equals(event.get("type")) && last.get("chunk").equals(event.get("chunk"))) {
                ((ObjectNode) last).put("content", last.get("content").asString() + event.get("content").asString());
                continue;
            }
            result.add(event.deepCopy());
        }
        return result;
    }

    static List<JsonNode> normalized(ArrayNode events) {
        List<JsonNode> list = new ArrayList<>();
        events.forEach(list::add);
        return normalized(list);
    }

    /** JSON Lines, each line one value, parsed. */
    static List<JsonNode> lines(String... jsonLines) {
        List<JsonNode> values = new ArrayList<>();
        for (String line : jsonLines) {
            values.add(json(line));
        }
        return values;
    }
}
