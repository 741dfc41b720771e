package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the project's Markdown pages leads to a file or folder of the
 * repository, and no page names a path outside it (a reader of a fresh clone has nothing else).
 */
class MarkdownLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");
    private static final Pattern OUTSIDE = Pattern.compile("\\.\\./shared|/work/");

    @Test
    void everyLinkLeadsIntoTheRepository() throws IOException {
        Path root = repositoryRoot();
        List<String> broken = new ArrayList<>();
        for (Path page : pages(root)) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue;   // http:, https:, mailto:
                }
                Path resolved = page.getParent().resolve(target).normalize();
                if (!resolved.startsWith(root) || !Files.exists(resolved)) {
                    broken.add(root.relativize(page) + ": " + target);
                }
            }
            if (OUTSIDE.matcher(text).find()) {
                broken.add(root.relativize(page) + ": names a path outside the repository");
            }
        }
        assertThat(broken).as("links that lead nowhere or outside the repository").isEmpty();
    }

    private static List<Path> pages(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(path -> path.toString().endsWith(".md"))
                    .filter(path -> {
                        String relative = root.relativize(path).toString();
                        return !relative.contains("target/") && !relative.startsWith(".") && !relative.contains("node_modules/");
                    })
                    .sorted()
                    .toList();
        }
    }

    private static Path repositoryRoot() {
        Path directory = Path.of("").toAbsolutePath();
        while (directory != null && !Files.exists(directory.resolve("mvnw"))) {
            directory = directory.getParent();
        }
        assertThat(directory).as("the repository root (where mvnw is)").isNotNull();
        return directory;
    }
}
