package dev.bellows.eval;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonPointer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.provider.Message;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Reads datasets: JSON Lines (one case a line; blank lines and lines starting with {@code //}
 * are skipped) or, for files ending {@code .yaml} / {@code .yml}, YAML (a list of cases). Every
 * case is checked as it is read, with its {@code expect} keys made into evaluators, so a bad
 * dataset fails before anything runs, naming the file, the line and the field.
 *
 * <p>Custom {@code expect} keys are registered with {@link #expectation}. Not thread-safe while
 * keys are registered; reading is.
 */
public final class DatasetReader {

    private static final Set<String> CASE_FIELDS = Set.of("id", "input", "expect", "repeat", "pass_rate", "tags");
    private static final Set<String> ROLES = Set.of("system", "user", "assistant");

    private final ObjectMapper json = Jackson.JSON;
    private final ObjectMapper yaml = Jackson.YAML;
    private final Map<String, ExpectationFactory> expectations = new LinkedHashMap<>(Evaluators.builtIn());

    /**
     * Makes {@code key} in a case's {@code expect} mean the evaluator {@code factory} makes of
     * its value (a built-in key may be replaced).
     */
    public DatasetReader expectation(String key, ExpectationFactory factory) {
        expectations.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(factory, "factory"));
        return this;
    }

    /**
     * Reads a dataset file.
     *
     * @throws DatasetException naming the file, line and field of the first problem
     * @throws IOException      when the file cannot be read
     */
    public Dataset read(Path file) throws DatasetException, IOException {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        List<EvalCase> cases = name.endsWith(".yaml") || name.endsWith(".yml") ? readYaml(file) : readJsonLines(file);
        if (cases.isEmpty()) {
            throw new DatasetException(file, 1, "", "the dataset has no cases");
        }
        return new Dataset(file, cases);
    }

    private List<EvalCase> readJsonLines(Path file) throws DatasetException, IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<EvalCase> cases = new ArrayList<>();
        Map<String, Integer> ids = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = (i == 0 && lines.get(0).startsWith("\uFEFF") ? lines.get(0).substring(1) : lines.get(i)).strip();
            if (line.isEmpty() || line.startsWith("//")) {
                continue;
            }
            LocatedTree tree;
            try (JsonParser parser = json.createParser(line)) {
                if (parser.nextToken() != JsonToken.START_OBJECT) {
                    throw new DatasetException(file, i + 1, "", "a case must be a JSON object");
                }
                tree = LocatedTree.readOneLine(parser, i);     // a line holds no line break: every value is on it
                if (parser.nextToken() != null) {
                    throw new DatasetException(file, i + 1, "", "one case a line: more follows the case's object");
                }
            } catch (JacksonException e) {
                throw new DatasetException(file, i + 1, "", "not valid JSON: " + e.getOriginalMessage());
            }
            cases.add(unique(file, ids, readCase(file, tree, i + 1)));
        }
        return cases;
    }

    private List<EvalCase> readYaml(Path file) throws DatasetException, IOException {
        List<EvalCase> cases = new ArrayList<>();
        Map<String, Integer> ids = new HashMap<>();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             JsonParser parser = yaml.createParser(reader)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_ARRAY) {
                throw new DatasetException(file, first == null ? 1 : parser.currentTokenLocation().getLineNr(), "",
                        "a YAML dataset is a list of cases (each item starting with \"- \")");
            }
            while (parser.nextToken() != JsonToken.END_ARRAY) {
                int line = parser.currentTokenLocation().getLineNr();
                if (parser.currentToken() != JsonToken.START_OBJECT) {
                    throw new DatasetException(file, line, "[" + cases.size() + "]", "a case must be a mapping (id, input, expect, ...)");
                }
                LocatedTree tree = LocatedTree.read(parser, 0);
                cases.add(unique(file, ids, readCase(file, tree, line)));
            }
        } catch (JacksonException e) {
            int line = e.getLocation() == null ? 1 : e.getLocation().getLineNr();
            throw new DatasetException(file, line, "", "not valid YAML: " + e.getOriginalMessage());
        }
        return cases;
    }

    private static EvalCase unique(Path file, Map<String, Integer> ids, EvalCase read) throws DatasetException {
        Integer before = ids.putIfAbsent(read.id(), read.line());
        if (before != null) {
            throw new DatasetException(file, read.line(), "id", "\"" + read.id() + "\" is the id of the case on line " + before + " too");
        }
        return read;
    }

    private EvalCase readCase(Path file, LocatedTree tree, int line) throws DatasetException {
        Problems at = new Problems(file, tree);
        JsonNode node = tree.value();
        for (var names = node.propertyNames().iterator(); names.hasNext(); ) {
            String field = names.next();
            if (!CASE_FIELDS.contains(field)) {
                throw at.problem("/" + field, field, "unknown field (a case has id, input, expect, repeat, pass_rate, tags)");
            }
        }
        JsonNode id = node.get("id");
        if (id == null || !id.isString() || id.asString().isBlank()) {
            throw at.problem("/id", "id", id == null ? "missing: every case needs an id (a string)" : "must be a non-empty string");
        }
        JsonNode input = node.get("input");
        String task;
        List<Message> history = new ArrayList<>();
        if (input == null) {
            throw at.problem("", "input", "missing: the task (a string) or a conversation (a list of {role, content})");
        } else if (input.isString()) {
            task = input.asString();
        } else if (input.isArray() && !input.isEmpty()) {
            for (int i = 0; i < input.size(); i++) {
                JsonNode message = input.get(i);
                String field = "input[" + i + "]";
                String pointer = "/input/" + i;
                if (!message.isObject() || !message.path("content").isString()) {
                    throw at.problem(pointer, field, "must be {\"role\": \"user\"|\"assistant\"|\"system\", \"content\": TEXT}");
                }
                String role = message.path("role").asString("");
                if (!ROLES.contains(role)) {
                    throw at.problem(pointer + "/role", field + ".role", "must be user, assistant or system, got " + message.get("role"));
                }
                String content = message.get("content").asString();
                history.add(switch (role) {
                    case "system" -> Message.system(content);
                    case "assistant" -> Message.assistant(content);
                    default -> Message.user(content);
                });
            }
            if (!input.get(input.size() - 1).path("role").asString().equals("user")) {
                throw at.problem("/input/" + (input.size() - 1), "input[" + (input.size() - 1) + "].role",
                        "the conversation's last message is the user's, the task the agent answers");
            }
            task = input.get(input.size() - 1).get("content").asString();
            history.removeLast();
        } else {
            throw at.problem("/input", "input", "must be the task (a string) or a conversation (a non-empty list of {role, content})");
        }
        if (task.isBlank()) {
            throw at.problem("/input", "input", "the task is empty");
        }
        List<Evaluator> evaluators = new ArrayList<>();
        OptionalInt maxIterations = OptionalInt.empty();
        JsonNode expect = node.get("expect");
        if (expect != null) {
            if (!expect.isObject()) {
                throw at.problem("/expect", "expect", "must be an object of checks (equals, contains, tools, ...)");
            }
            for (var fields = expect.properties().iterator(); fields.hasNext(); ) {
                var field = fields.next();
                ExpectationFactory factory = expectations.get(field.getKey());
                String pointer = "/expect/" + field.getKey().replace("~", "~0").replace("/", "~1");
                if (factory == null) {
                    throw at.problem(pointer, "expect." + field.getKey(), "unknown check (known: "
                            + String.join(", ", expectations.keySet()) + ")");
                }
                try {
                    Evaluator evaluator = factory.create(field.getValue().deepCopy());
                    if (evaluator != null) {
                        evaluators.add(evaluator);
                    }
                } catch (ExpectationException e) {
                    String inner = e.field();
                    throw at.problem(pointer + pointerOf(inner), "expect." + field.getKey()
                            + (inner.isEmpty() ? "" : inner.startsWith("[") ? inner : "." + inner), e.getMessage());
                }
                if (field.getKey().equals("max_iterations")) {
                    maxIterations = OptionalInt.of(field.getValue().asInt());
                }
            }
        }
        OptionalInt repeat = OptionalInt.empty();
        JsonNode r = node.get("repeat");
        if (r != null) {
            if (!r.isIntegralNumber() || r.asLong() < 1 || r.asLong() > 10_000) {
                throw at.problem("/repeat", "repeat", "must be a whole number from 1 to 10000, got " + r);
            }
            repeat = OptionalInt.of(r.asInt());
        }
        OptionalDouble passRate = OptionalDouble.empty();
        JsonNode p = node.get("pass_rate");
        if (p != null) {
            if (!p.isNumber() || !(p.asDouble() >= 0 && p.asDouble() <= 1)) {
                throw at.problem("/pass_rate", "pass_rate", "must be a number in 0..1, got " + p);
            }
            passRate = OptionalDouble.of(p.asDouble());
        }
        List<String> tags = new ArrayList<>();
        JsonNode t = node.get("tags");
        if (t != null) {
            if (!t.isArray()) {
                throw at.problem("/tags", "tags", "must be a list of strings");
            }
            for (int i = 0; i < t.size(); i++) {
                if (!t.get(i).isString()) {
                    throw at.problem("/tags/" + i, "tags[" + i + "]", "must be a string");
                }
                tags.add(t.get(i).asString());
            }
        }
        return new EvalCase(id.asString(), input, task, history, evaluators, repeat, passRate, maxIterations, tags, line);
    }

    /** {@code calls[1].name} as a JSON Pointer suffix, {@code /calls/1/name}, to find its line. */
    private static String pointerOf(String field) {
        if (field.isEmpty()) {
            return "";
        }
        StringBuilder pointer = new StringBuilder();
        for (String part : field.replace("[", ".").replace("]", "").split("\\.")) {
            if (!part.isEmpty()) {
                pointer.append('/').append(part.replace("~", "~0").replace("/", "~1"));
            }
        }
        return pointer.toString();
    }

    /** Problems of one case, placed on the line of the value they are about. */
    private record Problems(Path file, LocatedTree tree) {
        DatasetException problem(String pointer, String field, String problem) {
            JsonPointer at;
            try {
                at = JsonPointer.compile(pointer);
            } catch (IllegalArgumentException e) {
                at = JsonPointer.empty();
            }
            return new DatasetException(file, tree.line(at), field, problem);
        }
    }
}
