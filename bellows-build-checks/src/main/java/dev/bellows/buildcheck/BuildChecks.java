package dev.bellows.buildcheck;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The two checks of a module ({@link ModuleChecksTest} runs them in each one):
 *
 * <ol>
 *   <li>its public API ({@link PublicApi}) is the one recorded in {@code api/ARTIFACT.api}, and
 *       no signature of it mentions a mutable Jackson tree ({@link #MUTABLE_JSON});</li>
 *   <li>its package cycles ({@link PackageCycles}) are exactly those accepted in
 *       {@code api/package-cycles.txt} (none when there is no such file).</li>
 * </ol>
 *
 * Each returns its problems, as messages that say what to do, or records: the API file, and the
 * cycle file with the cycles left (never a new cycle: accepting one takes a hand edit, reviewed).
 */
final class BuildChecks {

    /** The one line that records every module's API and shrinks the accepted cycles. */
    static final String RECORD_COMMAND = "./mvnw -q -B verify -Dbellows.record";

    static final String CYCLES_FILE = "package-cycles.txt";

    /**
     * Jackson's mutable tree types, of Jackson 3 and 2: JSON in the public API is read-only
     * ({@code JsonNode}, frozen where it enters), so these appear in no public signature.
     */
    static final Pattern MUTABLE_JSON = Pattern.compile(
            "\\b(?:tools|com\\.fasterxml)\\.jackson\\.databind\\.node\\.(?:ObjectNode|ArrayNode|ContainerNode)\\b");

    private BuildChecks() {
    }

    /** The API check, or record when {@code record}, of the classes loaded through {@code loader}. */
    static List<String> api(Path module, String artifact, Path classes, ClassLoader loader, boolean record)
            throws Exception {
        Path file = module.resolve("api").resolve(artifact + ".api");
        List<String> current = PublicApi.render(classes, loader);
        String shown = module.relativize(file).toString();
        List<String> mutable = mutableJson(current);
        if (!mutable.isEmpty()) {
            // Before recording too: recording must not accept a mutable tree into the API.
            return List.of(artifact + "'s public API hands out mutable JSON trees (ObjectNode, ArrayNode or"
                    + " ContainerNode), in:\n  " + String.join("\n  ", mutable)
                    + "\nTake and give tools.jackson.databind.JsonNode instead, frozen where it enters"
                    + " (dev.bellows.json.internal.FrozenJson.freeze; DEVELOPERS.md, \"JSON in the public API\").");
        }
        if (record) {
            Files.createDirectories(file.getParent());
            Files.write(file, current, StandardCharsets.UTF_8);
            System.out.println(artifact + ": recorded its public API in " + shown);
            return List.of();
        }
        if (!Files.exists(file)) {
            return List.of(artifact + " has no recorded public API (" + shown + "). Record it with:\n  " + RECORD_COMMAND);
        }
        List<String> changes = ApiDiff.between(Files.readAllLines(file, StandardCharsets.UTF_8), current);
        if (changes.isEmpty()) {
            return List.of();
        }
        return List.of(artifact + "'s public API differs from the one recorded in " + shown + " (- recorded only, + now only):\n  "
                + String.join("\n  ", changes)
                + "\nIf the change is meant, record the API (every module's) and commit the api/ files with it:\n  "
                + RECORD_COMMAND);
    }

    /** The signatures ({@link ApiDiff#signatures}) of an API text that mention a mutable Jackson tree. */
    static List<String> mutableJson(List<String> api) {
        return ApiDiff.signatures(api).stream().filter(s -> MUTABLE_JSON.matcher(s).find()).toList();
    }

    /** The cycle check, or record (of the cycles left) when {@code record}. */
    static List<String> cycles(Path module, String artifact, Path classes, boolean record) throws Exception {
        Path file = module.resolve("api").resolve(CYCLES_FILE);
        String shown = module.relativize(file).toString();
        List<TreeSet<String>> accepted = readCycles(file);
        Map<String, TreeSet<String>> graph = PackageCycles.graph(classes);
        List<TreeSet<String>> current = PackageCycles.cycles(graph);
        List<String> problems = new ArrayList<>();
        for (TreeSet<String> cycle : current) {
            if (accepted.stream().noneMatch(a -> a.containsAll(cycle))) {
                StringBuilder edges = new StringBuilder();
                for (String from : cycle) {
                    TreeSet<String> to = new TreeSet<>(graph.get(from));
                    to.retainAll(cycle);
                    edges.append("\n    ").append(from).append(" -> ").append(String.join(", ", to));
                }
                problems.add(artifact + " has a new package cycle (a package and its .internal packages count as one):"
                        + edges + "\nBreak it (move what both sides need to one of them, or to a package of its own)."
                        + " Only the cycles in " + shown + " are accepted, and only until they are broken.");
            }
        }
        if (!problems.isEmpty() || current.equals(accepted)) {
            return problems;
        }
        if (record) {
            if (current.isEmpty()) {
                Files.deleteIfExists(file);
            } else {
                List<String> lines = new ArrayList<>(List.of(
                        "# The package cycles accepted in this module, one a line (a package and its .internal",
                        "# packages count as one). The build fails on any other cycle, and when one of these",
                        "# is gone or smaller; then it records the shorter list with:",
                        "#   " + RECORD_COMMAND,
                        "# which never adds a cycle: break a new one instead."));
                current.forEach(cycle -> lines.add(String.join(" ", cycle)));
                Files.write(file, lines, StandardCharsets.UTF_8);
            }
            System.out.println(artifact + ": recorded its remaining package cycles in " + shown);
            return List.of();
        }
        return List.of(artifact + "'s package cycles are fewer than those accepted in " + shown + " (good): now "
                + (current.isEmpty() ? "none" : current) + ", accepted " + accepted
                + ". Record the shorter list, so that the broken ones stay broken:\n  " + RECORD_COMMAND);
    }

    static List<TreeSet<String>> readCycles(Path file) throws Exception {
        List<TreeSet<String>> cycles = new ArrayList<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String text = line.strip();
                if (!text.isEmpty() && !text.startsWith("#")) {
                    cycles.add(new TreeSet<>(List.of(text.split("\\s+"))));
                }
            }
        }
        cycles.sort((a, b) -> a.first().compareTo(b.first()));
        return cycles;
    }
}
