package dev.bellows.eval;

import tools.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes one of a report's files into the output directory: {@code report.json}
 * ({@link ReportJson#WRITER}), the JUnit XML, the HTML page. Each works from the report's JSON,
 * the same object {@code report.json} holds, so that a report can be rendered again from its
 * file ({@code bellows eval report FILE}).
 */
public interface ReportWriter {

    /** The file it writes, in the output directory ({@code report.json}). */
    String fileName();

    /**
     * Writes the file.
     *
     * @param report    the report's JSON, as {@link ReportJson#toJson} makes it; read-only
     * @param directory the output directory, which exists; event files are named relative to it
     */
    void write(JsonNode report, Path directory) throws IOException;
}
