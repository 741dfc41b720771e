package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** bellows-bom manages every module a user may depend on, at the reactor's version. */
class BomTest {

    /** Modules that are not libraries: nobody depends on them (bellows-build-checks: the build's own checks). */
    private static final Set<String> NOT_LIBRARIES = Set.of("bellows-bom", "bellows-bench", "bellows-build-checks", "examples");

    @Test
    void theBomListsEveryLibraryModule() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        String parent = Files.readString(root.resolve("pom.xml"));
        String bom = Files.readString(root.resolve("bellows-bom/pom.xml"));

        Set<String> libraries = all(Pattern.compile("<module>([^<]+)</module>"), parent).stream()
                .filter(module -> !NOT_LIBRARIES.contains(module)).collect(Collectors.toSet());
        Set<String> managed = Set.copyOf(all(Pattern.compile("<artifactId>(bellows-[^<]+)</artifactId>"),
                bom.substring(bom.indexOf("<dependencyManagement>"))));

        assertThat(managed).as("bellows-bom's dependencyManagement").isEqualTo(libraries);
        assertThat(version(bom)).as("bellows-bom's version").isEqualTo(version(parent));
    }

    private static List<String> all(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        return matcher.results().map(result -> result.group(1)).toList();
    }

    /** The project's own version: the first {@code <version>} after its artifactId. */
    private static String version(String pom) {
        Matcher matcher = Pattern.compile("<artifactId>bellows-(?:parent|bom)</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(pom);
        assertThat(matcher.find()).as("the pom's own version").isTrue();
        return matcher.group(1);
    }
}
