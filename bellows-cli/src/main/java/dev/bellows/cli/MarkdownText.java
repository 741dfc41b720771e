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
 * so nothing the model said is ever lost. Given the terminal's width, paragraphs, headings and
 * list items are wrapped between words (a list item's next rows indented under its text), as
 * a terminal would otherwise cut words in two; code blocks and tables are left as they are.
 * Widths are terminal columns: a wide East Asian character or an emoji takes two.
 */
final class MarkdownText {

    static final String BOLD = "\u001b[1m";
    static final String CODE = "\u001b[36m";
    static final String RESET = "\u001b[0m";

    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern BULLET = Pattern.compile("^(\\s*)[-*+]\\s+(.*)$");
    private static final Pattern NUMBERED = Pattern.compile("^(\\s*)(\\d{1,3}[.)])\\s+(.*)$");
    private static final Pattern TABLE_RULE = Pattern.compile("^\\s*\\|?\\s*:?-{3,}:?\\s*(\\|\\s*:?-{3,}:?\\s*)*\\|?\\s*$");
    private static final Pattern STRONG = Pattern.compile("\\*\\*(.+?)\\*\\*");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");

    private MarkdownText() {
    }

    /** {@code markdown} laid out for a terminal; {@code ansi} adds bold, colour and dim. */
    static String render(String markdown, boolean ansi) {
        return render(markdown, ansi, 0);
    }

    /**
     * {@code markdown} laid out for a terminal {@code width} columns wide (0: unknown, no
     * wrapping); {@code ansi} adds bold, colour and dim.
     */
    static String render(String markdown, boolean ansi, int width) {
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
                wrap(ansi ? BOLD + text + RESET : text, 0, width, out);
                continue;
            }
            Matcher bullet = BULLET.matcher(line);
            if (bullet.matches() && !TABLE_RULE.matcher(line).matches()) {
                wrap(bullet.group(1) + "\u2022 " + inline(bullet.group(2), ansi), bullet.group(1).length() + 2, width,
                        out);
                continue;
            }
            Matcher numbered = NUMBERED.matcher(line);
            if (numbered.matches()) { // "1. text": the next rows under the text
                wrap(numbered.group(1) + numbered.group(2) + " " + inline(numbered.group(3), ansi),
                        numbered.group(1).length() + numbered.group(2).length() + 1, width, out);
                continue;
            }
            wrap(inline(line, ansi), 0, width, out);
        }
        return out.toString();
    }

    /**
     * Appends {@code content} broken between words into rows of at most {@code width - 1}
     * columns (the last column stays free, as in the rest of the chat), the rows after the
     * first indented by {@code indent}; a word longer than a row is left whole, for the
     * terminal to wrap (a URL stays one word). Spaces within the line are kept as written.
     */
    static void wrap(String content, int indent, int width, StringBuilder out) {
        int room = width - 1;
        if (width <= 0 || TextRenderer.columns(content, 0) <= room || room <= indent + 10) {
            out.append(content).append('\n');
            return;
        }
        int lead = content.length() - content.stripLeading().length();
        StringBuilder row = new StringBuilder(content.substring(0, lead));
        int used = TextRenderer.columns(row.toString(), 0);
        for (String word : content.substring(lead).split(" ")) {
            int cells = TextRenderer.columns(word, 0);
            boolean first = row.toString().isBlank();
            if (!first && used + 1 + cells > room) {
                out.append(row).append('\n');
                row.setLength(0);
                row.append(" ".repeat(indent));
                used = indent;
                first = true;
            }
            if (!first) {
                row.append(' ');
                used++;
            }
            row.append(word);
            used += cells;
        }
        out.append(row).append('\n');
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
                widths[c] = Math.max(widths[c], TextRenderer.columns(text, 0)); // 中 takes two
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
                line.append(text).append(" ".repeat(widths[c] - TextRenderer.columns(text, 0)));
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
