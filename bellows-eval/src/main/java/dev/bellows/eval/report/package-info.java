/**
 * The files made from an evaluation's {@code report.json}: {@link dev.bellows.eval.report.EvalReports}
 * writes JUnit XML for CI systems and a self-contained HTML page (summary, cases, transcripts,
 * scores against the baseline) for people, from the report's JSON alone.
 */
package dev.bellows.eval.report;
