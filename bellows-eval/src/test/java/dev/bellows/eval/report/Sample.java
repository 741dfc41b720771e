package dev.bellows.eval.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The sample report the tests read (test resources, {@code sample/}): five cases of a weather
 * dataset against the mock model, three repeated; capital-france fails (one run answers Lyon)
 * and regressed against its baseline; a case whose id, answer, tool arguments and results are
 * hostile markup; a case with a failed run (the model server closed the connection mid-answer,
 * after a retry); a conversation case, new against the baseline, whose events file is missing.
 * Each run's events are the JSONL of {@code bellows run --output jsonl}, where the runner puts
 * them ({@code events/CASE/run-N.jsonl}, runs numbered from 1).
 */
final class Sample {

    private Sample() {
    }

    /** A copy of the sample in {@code dir}; returns its report.json. */
    static Path copyTo(Path dir) {
        try {
            Path source = Path.of(Sample.class.getResource("sample/report.json").toURI()).getParent();
            try (Stream<Path> files = Files.walk(source)) {
                for (Path file : files.toList()) {
                    Path target = dir.resolve(source.relativize(file).toString());
                    if (Files.isDirectory(file)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(file, target);
                    }
                }
            }
            return dir.resolve("report.json");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
