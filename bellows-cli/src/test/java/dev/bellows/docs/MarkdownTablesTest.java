package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every table of the project's Markdown pages is one block: a blank line ends a table, so a
 * row after one is shown as a paragraph of pipes (a row cut off its table), unless it starts
 * a table of its own (a header row, then the delimiter row).
 */
class MarkdownTablesTest {

    private static final Pattern DELIMITER = Pattern.compile("^\\s*\\|?\\s*:?-+:?\\s*(\\|\\s*:?-+:?\\s*)*\\|?\\s*$");

    @Test
    void everyTableIsOneBlock() throws IOException {
        Path root = MarkdownPages.repositoryRoot();
        List<String> cut = new ArrayList<>();
        for (Path page : MarkdownPages.under(root)) {
            cut.addAll(rowsCutOff(root.relativize(page).toString(), Files.readString(page, StandardCharsets.UTF_8)));
        }
        assertThat(cut).as("table rows after a blank line that start no table of their own").isEmpty();
    }

    @Test
    void aRowAfterABlankLineIsFoundAndANewTableIsNot() {
        String page = """
                | a | b |
                |---|---|
                | 1 | 2 |

                | 3 | 4 |

                | c | d |
                |---|---|
                ```
                | in a fence |

                | in a fence |
                ```
                """;
        assertThat(rowsCutOff("p.md", page)).containsExactly("p.md:5: | 3 | 4 |");
    }

    /** The rows that follow a blank line and start no table, as {@code page:line: row}. */
    static List<String> rowsCutOff(String name, String markdown) {
        List<String> cut = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            boolean row = line.strip().startsWith("|");
            boolean afterBlank = i > 0 && lines[i - 1].isBlank();
            boolean startsTable = i + 1 < lines.length && DELIMITER.matcher(lines[i + 1]).matches();
            if (!fenced && row && afterBlank && !startsTable) {
                cut.add(name + ":" + (i + 1) + ": " + line);
            }
        }
        return cut;
    }
}
