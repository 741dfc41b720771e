package dev.bellows.eval.report;

import tools.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The files made from an evaluation's {@code report.json}: JUnit XML for CI systems and one
 * self-contained HTML page for people. Both read the report's JSON (a file, or its tree), never
 * the runner's types, so a report written earlier, or elsewhere, reopens the same way; the
 * HTML page reads each run's events file (a path relative to the report's folder) for its
 * transcript. Stateless and thread-safe; the tree passed in is not changed.
 */
public final class EvalReports {

    /** The HTML page's name beside {@code report.json}. */
    public static final String HTML = "report.html";
    /** The JUnit XML file's name beside {@code report.json}. */
    public static final String JUNIT_XML = "junit.xml";

    private EvalReports() {
    }

    /**
     * Checks that {@code reportJson} is a readable report.
     *
     * @throws InvalidReportException naming the file, and the field at fault
     */
    public static void check(Path reportJson) throws InvalidReportException {
        ReportReader.read(ReportReader.readTree(reportJson), reportJson.toString());
    }

    /**
     * Writes the JUnit XML of {@code report} to {@code out}: one {@code testcase} per case, a
     * {@code failure} with each failing evaluator's reason for each failed case.
     *
     * @throws InvalidReportException if {@code report} is not a report (the field at fault named)
     */
    public static void writeJunitXml(JsonNode report, Writer out) throws IOException {
        JunitXml.write(ReportReader.read(report, "report"), out);
    }

    /**
     * Writes the HTML page of {@code report} to {@code out}.
     *
     * @param reportDir the folder the report's events paths are relative to
     * @throws InvalidReportException if {@code report} is not a report (the field at fault named)
     */
    public static void writeHtml(JsonNode report, Path reportDir, Writer out) throws IOException {
        HtmlReport.write(ReportReader.read(report, "report"), reportDir, out);
    }

    /**
     * Writes {@code junit.xml} beside {@code reportJson} (replacing it whole, never half
     * written) and returns its path.
     *
     * @throws InvalidReportException if the file is missing, unreadable or not a report
     */
    public static Path writeJunitXml(Path reportJson) throws IOException {
        Report report = ReportReader.read(ReportReader.readTree(reportJson), reportJson.toString());
        return replace(sibling(reportJson, JUNIT_XML), out -> JunitXml.write(report, out));
    }

    /**
     * Writes {@code report.html} beside {@code reportJson} (replacing it whole) and returns its path.
     *
     * @throws InvalidReportException if the file is missing, unreadable or not a report
     */
    public static Path writeHtml(Path reportJson) throws IOException {
        Report report = ReportReader.read(ReportReader.readTree(reportJson), reportJson.toString());
        Path dir = folder(reportJson);
        return replace(sibling(reportJson, HTML), out -> HtmlReport.write(report, dir, out));
    }

    private interface Body {
        void write(Writer out) throws IOException;
    }

    private static Path folder(Path reportJson) {
        Path parent = reportJson.toAbsolutePath().getParent();
        return parent == null ? Path.of("") : parent;
    }

    private static Path sibling(Path reportJson, String name) {
        return folder(reportJson).resolve(name);
    }

    /** Written to a temporary file beside {@code target}, then moved over it: a reader never sees half a page. */
    private static Path replace(Path target, Body body) throws IOException {
        Path temporary = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
                body.write(out);
            }
            try {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (java.nio.file.AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return target;
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
