package dev.bellows.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model's Markdown answer made readable in a terminal: headings bold, list bullets as
 * {@code •}, fenced code blocks indented (their fences dropped), tables with aligned columns,
 * {@code **bold**} and {@code `code`} styled. Without ANSI the same layout comes with no
 * escape codes (the emphasis markers are dropped, headings keep their text alone).
 *
 * <p>Only the common block forms are recognised; anything else is passed through as written,
 * so nothing the model said is ever lost.
 */
final class MarkdownText {

    static final String BOLD = "\u001b[1m";
    static final String CODE = "\u001b[36m";
    static final String RESET = "\u001b[0m";

    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern BULLET = Pattern.compile("^(\\s*)[-*+]\\s+(.*)$");
    private static final Pattern TABLE_RULE = Pattern.compile("^\\s*\\|?\\s*:?-{3,}:?\\s*(\\|\\s*:?-{3,}:?\\s*)*\\|?\\s*$");
    private static final Pattern STRONG = Pattern.compile("\\*\\*(.+?)\\*\\*");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");

    private MarkdownText() {
    }

    /** {@code markdown} laid out for a terminal; {@code ansi} adds bold, colour and dim. */
    static String render(String markdown, boolean ansi) {
        List<String> lines = markdown.strip().lines().toList();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```")) {
                int end = i + 1;
                while (end < lines.size() && !lines.get(end).strip().startsWith("```")) {
                    out.append("    ").append(ansi ? CODE + lines.get(end) + RESET : lines.get(end)).append('\n');
                    end++;
                }
                i = end; // past the closing fence (or the end)
                continue;
            }
            if (isTableRow(line) && i + 1 < lines.size() && TABLE_RULE.matcher(lines.get(i + 1)).matches()) {
                List<List<String>> rows = new ArrayList<>();
                rows.add(cells(line));
                int next = i + 2;
                while (next < lines.size() && isTableRow(lines.get(next))) {
                    rows.add(cells(lines.get(next)));
                    next++;
                }
                table(rows, ansi, out);
                i = next - 1;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String text = inline(heading.group(2), ansi);
                out.append(ansi ? BOLD + text + RESET : text).append('\n');
                continue;
            }
            Matcher bullet = BULLET.matcher(line);
            if (bullet.matches() && !TABLE_RULE.matcher(line).matches()) {
                out.append(bullet.group(1)).append("\u2022 ").append(inline(bullet.group(2), ansi)).append('\n');
                continue;
            }
            out.append(inline(line, ansi)).append('\n');
        }
        return out.toString();
    }

    private static boolean isTableRow(String line) {
        String stripped = line.strip();
        return stripped.startsWith("|") && stripped.length() > 1;
    }

    private static List<String> cells(String line) {
        String stripped = line.strip();
        stripped = stripped.substring(1, stripped.endsWith("|") && stripped.length() > 1 ? stripped.length() - 1
                : stripped.length());
        List<String> cells = new ArrayList<>();
        for (String cell : stripped.split("\\|", -1)) {
            cells.add(cell.strip());
        }
        return cells;
    }

    /** Columns padded to their widest cell; the header bold (ANSI) and underlined with dashes. */
    private static void table(List<List<String>> rows, boolean ansi, StringBuilder out) {
        int columns = rows.stream().mapToInt(List::size).max().orElse(0);
        int[] widths = new int[columns];
        List<List<String>> shown = new ArrayList<>();
        for (List<String> row : rows) {
            List<String> plain = new ArrayList<>();
            for (int c = 0; c < columns; c++) {
                String text = c < row.size() ? inline(row.get(c), false) : "";
                plain.add(text);
                widths[c] = Math.max(widths[c], text.codePointCount(0, text.length()));
            }
            shown.add(plain);
        }
        for (int r = 0; r < shown.size(); r++) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                String text = shown.get(r).get(c);
                if (c > 0) {
                    line.append(" \u2502 ");
                }
                line.append(text).append(" ".repeat(widths[c] - text.codePointCount(0, text.length())));
            }
            String text = line.toString().stripTrailing();
            out.append(ansi && r == 0 ? BOLD + text + RESET : text).append('\n');
            if (r == 0) {
                StringBuilder rule = new StringBuilder();
                for (int c = 0; c < columns; c++) {
                    rule.append(c > 0 ? "\u2500\u253c\u2500" : "").append("\u2500".repeat(widths[c]));
                }
                out.append(rule).append('\n');
            }
        }
    }

    private static String inline(String text, boolean ansi) {
        String strong = STRONG.matcher(text).replaceAll(m -> Matcher.quoteReplacement(
                ansi ? BOLD + m.group(1) + RESET : m.group(1)));
        return INLINE_CODE.matcher(strong).replaceAll(m -> Matcher.quoteReplacement(
                ansi ? CODE + m.group(1) + RESET : m.group(1)));
    }
}
