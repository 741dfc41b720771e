package dev.bellows.eval;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamRedaction;
import dev.bellows.secret.Secrets;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Where each run's events go: {@code events/CASE/run-N.jsonl} under the output directory, one
 * JSON object a line as {@code bellows run --output jsonl} writes them (secrets redacted, those
 * split across a stream's deltas too). The
 * case's folder is its id made safe for any file system, unique even where names differ only
 * in case.
 */
final class EventFiles {

    static final String FOLDER = "events";

    private final Path directory;
    private final List<String> folders;

    /** Chooses each case's folder up front, in dataset order, so the names never depend on which run ends first. */
    EventFiles(Path directory, List<EvalCase> cases) {
        this.directory = directory;
        Set<String> taken = new HashSet<>();
        this.folders = cases.stream().map(c -> {
            String safe = c.id().replaceAll("[^A-Za-z0-9._-]", "_");
            if (safe.startsWith(".")) {
                safe = "_" + safe.substring(1);
            }
            if (safe.length() > 80) {
                safe = safe.substring(0, 80);
            }
            String name = safe;
            for (int n = 2; !taken.add(name.toLowerCase(Locale.ROOT)); n++) {
                name = safe + "-" + n;
            }
            return name;
        }).toList();
    }

    /** The file of a run, relative to the output directory, {@code /}-separated. */
    String relative(int caseNumber, int index) {
        return FOLDER + "/" + folders.get(caseNumber) + "/run-" + index + ".jsonl";
    }

    /** Writes the run's events; returns the file's relative name. */
    String write(int caseNumber, int index, List<AgentEvent> events) throws IOException {
        String relative = relative(caseNumber, index);
        Path file = directory.resolve(relative);
        Files.createDirectories(file.getParent());
        StreamRedaction deltas = new StreamRedaction();   // a secret split across deltas is in no one line
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (AgentEvent event : events) {
                for (AgentEvent redacted : deltas.apply(event)) {
                    if (redacted instanceof StreamEvent.Complete) {
                        continue;       // not written by run --output jsonl either: it repeats the answer
                    }
                    out.write(Secrets.redact(EventJson.toJson(redacted, false).toString()));
                    out.write('\n');
                }
            }
        }
        return relative;
    }
}
