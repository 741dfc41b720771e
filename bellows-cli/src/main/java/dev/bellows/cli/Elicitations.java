package dev.bellows.cli;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.mcp.ElicitationHandler;
import dev.bellows.mcp.ElicitationRequest;
import dev.bellows.mcp.ElicitationResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@code --elicitation ask|defaults|decline} (env {@code BELLOWS_ELICITATION}, config
 * {@code "elicitation"}): how the command line answers an MCP server's question
 * ({@code elicitation/create}, form mode). {@code ask} (the default on a terminal) shows the
 * server and its message and asks for each field, checking each answer against the requested
 * schema; {@code defaults} accepts with the fields' defaults; {@code decline} (the default
 * without a terminal) declines.
 */
final class Elicitations {

    static final String ENV = "BELLOWS_ELICITATION";
    static final String CONFIG_KEY = "elicitation";

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");
    private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

    enum Mode { ASK, DEFAULTS, DECLINE }

    private Elicitations() {
    }

    /** The mode from the flag, the variable, the config file, else ask on a terminal and decline without. */
    static Mode mode(Host host, String flag, ConfigFile file, boolean terminal) throws UsageException {
        String value;
        String source;
        if (flag != null) {
            value = flag;
            source = "--elicitation";
        } else if (host.envValue(ENV) != null) {
            value = host.envValue(ENV);
            source = ENV;
        } else if (file.string(CONFIG_KEY) != null) {
            value = file.string(CONFIG_KEY);
            source = file.source(CONFIG_KEY);
        } else {
            return terminal ? Mode.ASK : Mode.DECLINE;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "ask" -> Mode.ASK;
            case "defaults" -> Mode.DEFAULTS;
            case "decline" -> Mode.DECLINE;
            default -> throw new UsageException(source + ": unknown elicitation mode (ask, defaults or decline)");
        };
    }

    /** The handler of a mode; {@code lines} is asked for the person's lines in {@code ask} mode. */
    static ElicitationHandler handler(Mode mode, Supplier<Lines> lines, PrintWriter out) {
        return switch (mode) {
            case ASK -> new Asking(lines, out);
            case DEFAULTS -> ElicitationHandler.DEFAULTS;
            case DECLINE -> ElicitationHandler.DECLINE;
        };
    }

    /** Where a person's answers come from. */
    interface Lines {
        /** The line typed after the prompt; null at the end of input. @throws Cancelled on Ctrl-C */
        String read(String prompt) throws Cancelled;

        /** Quiets what else writes to the terminal (a turn's spinner) before the question is shown. */
        default void quiet() {
        }
    }

    /** Ctrl-C while a question was asked. */
    static final class Cancelled extends Exception {
        Cancelled() {
            super("cancelled", null, false, false);
        }
    }

    /**
     * Standard input, line by line, the prompt on standard error (bellows run and tools);
     * {@code quiet} stops the run's progress spinner before the question is shown.
     */
    static Lines plain(BellowsCommand root, Runnable quiet) {
        BufferedReader reader = new BufferedReader(new InputStreamReader(root.stdin, StandardCharsets.UTF_8));
        return new Lines() {
            @Override
            public String read(String prompt) {
                quiet.run();
                root.stderr.print(prompt);
                root.stderr.flush();
                try {
                    return reader.readLine();
                } catch (IOException e) {
                    return null;
                }
            }

            @Override
            public void quiet() {
                quiet.run();
            }
        };
    }

    /** The chat's own line reader; {@code beforeAsking} quiets the turn's progress (its spinner) first. */
    static Lines chat(ChatIo io, Runnable beforeAsking) {
        return new Lines() {
            @Override
            public String read(String prompt) throws Cancelled {
                beforeAsking.run();
                return switch (io.readDuringTurn(prompt)) {
                    case ChatIo.Line line -> line.text();
                    case ChatIo.Interrupt interrupt -> throw new Cancelled();
                    case ChatIo.End end -> null;
                };
            }

            @Override
            public void quiet() {
                beforeAsking.run();
            }
        };
    }

    /** {@code ask}: one question at a time, field by field. */
    static final class Asking implements ElicitationHandler {

        private final Supplier<Lines> lines;
        private final PrintWriter out;

        Asking(Supplier<Lines> lines, PrintWriter out) {
            this.lines = lines;
            this.out = out;
        }

        @Override
        public synchronized ElicitationResult elicit(ElicitationRequest request) {
            Lines in = lines.get();
            if (in == null) {
                return new ElicitationResult.Decline(); // nobody to ask yet
            }
            try {
                return ask(request, in);
            } catch (Cancelled e) {
                out.println("(cancelled)");
                out.flush();
                return new ElicitationResult.Cancel();
            }
        }

        private ElicitationResult ask(ElicitationRequest request, Lines in) throws Cancelled {
            in.quiet();
            out.println();
            out.println("MCP server \"" + request.serverName() + "\" asks: " + visible(request.message()));
            out.flush();
            String go = in.read("Answer it? [Y/n] ");
            if (go == null || go.strip().equalsIgnoreCase("n") || go.strip().equalsIgnoreCase("no")) {
                out.println("(declined)");
                out.flush();
                return new ElicitationResult.Decline();
            }
            ObjectNode content = JSON.createObjectNode();
            for (ElicitationRequest.Field field : request.fields()) {
                JsonNode value = askField(field, in);
                if (value == null) {
                    return new ElicitationResult.Decline(); // the end of input
                }
                if (!value.isMissingNode()) {
                    content.set(field.name(), value);
                }
            }
            return new ElicitationResult.Accept(content);
        }

        /** The field's value; a missing node when left out; null at the end of input. */
        private JsonNode askField(ElicitationRequest.Field field, Lines in) throws Cancelled {
            JsonNode schema = field.schema();
            String title = schema.path("title").asString(field.name());
            String description = schema.path("description").asString("");
            List<String> choices = field.choices();
            StringBuilder label = new StringBuilder("  ").append(visible(title)).append(" (").append(field.type());
            if (!choices.isEmpty()) {
                label.append(": ").append(visible(String.join(", ", choices)));
            }
            label.append(field.required() ? ", required" : "").append(")");
            if (!description.isBlank() && !description.equals(title)) {
                label.append(" ").append(visible(description));
            }
            field.defaultValue().ifPresent(value -> label.append(" [").append(visible(value.isString()
                    ? value.asString() : value.toString())).append("]"));
            label.append(": ");
            while (true) {
                String line = in.read(label.toString());
                if (line == null) {
                    return null;
                }
                String text = line.strip();
                if (text.isEmpty()) {
                    if (field.defaultValue().isPresent()) {
                        return field.defaultValue().get();
                    }
                    if (!field.required()) {
                        return tools.jackson.databind.node.MissingNode.getInstance();
                    }
                    out.println("    an answer is required");
                    out.flush();
                    continue;
                }
                try {
                    return check(field, text);
                } catch (IllegalArgumentException e) {
                    out.println("    " + e.getMessage());
                    out.flush();
                }
            }
        }
    }

    /** The typed text as the field's type, checked against its schema; the message says what is wrong. */
    static JsonNode check(ElicitationRequest.Field field, String text) {
        JsonNode schema = field.schema();
        List<String> choices = field.choices();
        switch (field.type()) {
            case "boolean" -> {
                return switch (text.toLowerCase(Locale.ROOT)) {
                    case "y", "yes", "true" -> JSON.getNodeFactory().booleanNode(true);
                    case "n", "no", "false" -> JSON.getNodeFactory().booleanNode(false);
                    default -> throw new IllegalArgumentException("answer y or n");
                };
            }
            case "integer", "number" -> {
                BigDecimal number;
                try {
                    number = new BigDecimal(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("expected a number");
                }
                boolean integer = field.type().equals("integer");
                if (integer && number.stripTrailingZeros().scale() > 0) {
                    throw new IllegalArgumentException("expected a whole number");
                }
                if (schema.has("minimum") && number.compareTo(schema.get("minimum").decimalValue()) < 0) {
                    throw new IllegalArgumentException("at least " + schema.get("minimum").asString());
                }
                if (schema.has("maximum") && number.compareTo(schema.get("maximum").decimalValue()) > 0) {
                    throw new IllegalArgumentException("at most " + schema.get("maximum").asString());
                }
                try {
                    return JSON.readTree(integer ? number.toBigInteger().toString() : number.toString()); // as JSON reads it
                } catch (JacksonException e) {
                    throw new IllegalArgumentException("expected a number");
                }
            }
            case "array" -> {
                ArrayNode items = JSON.createArrayNode();
                for (String item : text.split(",")) {
                    String value = item.strip();
                    if (!choices.isEmpty() && !choices.contains(value)) {
                        throw new IllegalArgumentException("choose from: " + visible(String.join(", ", choices)));
                    }
                    items.add(value);
                }
                if (schema.has("minItems") && items.size() < schema.get("minItems").asInt()) {
                    throw new IllegalArgumentException("at least " + schema.get("minItems").asInt() + " items");
                }
                if (schema.has("maxItems") && items.size() > schema.get("maxItems").asInt()) {
                    throw new IllegalArgumentException("at most " + schema.get("maxItems").asInt() + " items");
                }
                return items;
            }
            default -> {
                if (!choices.isEmpty() && !choices.contains(text)) {
                    throw new IllegalArgumentException("choose from: " + visible(String.join(", ", choices)));
                }
                int length = text.codePointCount(0, text.length());
                if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
                    throw new IllegalArgumentException("at least " + schema.get("minLength").asInt() + " characters");
                }
                if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
                    throw new IllegalArgumentException("at most " + schema.get("maxLength").asInt() + " characters");
                }
                String format = schema.path("format").asString("");
                if (format.equals("email") && !EMAIL.matcher(text).matches()) {
                    throw new IllegalArgumentException("expected an email address");
                }
                if (format.equals("date") && !DATE.matcher(text).matches()) {
                    throw new IllegalArgumentException("expected a date like 2025-12-31");
                }
                if (format.equals("uri")) {
                    try {
                        if (java.net.URI.create(text).getScheme() == null) {
                            throw new IllegalArgumentException("expected a URI like https://example.com");
                        }
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("expected a URI like https://example.com");
                    }
                }
                return JSON.getNodeFactory().stringNode(text);
            }
        }
    }

    /** A server's text with control characters made visible (only Bellows' own styling writes escapes). */
    static String visible(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
                out.append('^').append((char) (c == 0x7f ? '?' : c + 64));
            } else if (c >= 0x80 && c <= 0x9f) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }
}
