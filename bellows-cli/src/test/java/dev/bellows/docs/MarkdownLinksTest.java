package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the project's Markdown pages leads to a file or folder of the
 * repository, every {@code #anchor} (on the same page or another page) to a heading of that
 * page, and no page names a path outside the repository (a reader of a fresh clone has
 * nothing else).
 */
class MarkdownLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]*)(?:#([^)\\s]*))?\\)");
    private static final Pattern OUTSIDE = Pattern.compile("\\.\\./shared|/work/");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}[ \\t]+(.+?)[ \\t#]*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    @Test
    void everyLinkLeadsIntoTheRepository() throws IOException {
        Path root = repositoryRoot();
        List<String> broken = new ArrayList<>();
        for (Path page : pages(root)) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                String anchor = link.group(2);
                if (target.matches("[a-z]+:.*")) {
                    continue;   // http:, https:, mailto:
                }
                if (target.isEmpty() && anchor == null) {
                    continue;   // "[]()" is not a link
                }
                Path resolved = target.isEmpty() ? page : page.getParent().resolve(target).normalize();
                if (!resolved.startsWith(root) || !Files.exists(resolved)) {
                    broken.add(root.relativize(page) + ": " + target);
                } else if (anchor != null && resolved.toString().endsWith(".md")
                        && !anchors(Files.readString(resolved, StandardCharsets.UTF_8)).contains(anchor)) {
                    broken.add(root.relativize(page) + ": " + target + "#" + anchor + " (no such heading)");
                }
            }
            if (OUTSIDE.matcher(text).find()) {
                broken.add(root.relativize(page) + ": names a path outside the repository");
            }
        }
        assertThat(broken).as("links that lead nowhere or outside the repository").isEmpty();
    }

    @Test
    void anchorsAreTheHeadingsAsGitHubNamesThem() {
        String page = """
                # Bellows
                ## Use Bellows in your project
                ### `bellows parse`
                ```
                # not a heading: inside a fence
                ```
                ## The `chunk` index
                ## Retries and failures
                ## Retries and failures
                <a id="custom"></a>
                """;
        assertThat(anchors(page)).containsExactly("bellows", "use-bellows-in-your-project", "bellows-parse",
                "the-chunk-index", "retries-and-failures", "retries-and-failures-1", "custom");
    }

    /** The anchors GitHub gives a page's headings, in order, and its explicit HTML anchors. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (!fenced && heading.matches()) {
                String slug = slug(heading.group(1));
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    // GitHub's rule: lower case, punctuation other than '-' and '_' dropped, spaces to '-'.
    private static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }

    private static List<Path> pages(Path root) throws IOException {
        return MarkdownPages.under(root);
    }

    private static Path repositoryRoot() {
        return MarkdownPages.repositoryRoot();
    }
}
