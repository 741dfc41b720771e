package dev.bellows.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The controller the top-level README shows under "Spring Boot" is this application's
 * {@link AskController}, but for its package: the build compiles and runs it here, where
 * Spring is on the classpath (the README's own snippet test cannot).
 */
class ReadmeControllerTest {

    @Test
    void the_readmes_controller_is_this_one() throws IOException {
        String readme = Files.readString(Path.of("../../README.md"));
        String section = readme.substring(readme.indexOf("\n## Spring Boot\n"));
        Matcher fence = Pattern.compile("(?s)```java\\n(.*?)```").matcher(section);
        assertThat(fence.find()).as("a java snippet in the README's Spring Boot section").isTrue();
        String source = Files.readString(Path.of("src/main/java/dev/bellows/examples/springboot/AskController.java"));

        assertThat(withoutPackageAndDocs(fence.group(1))).isEqualTo(withoutPackageAndDocs(source));
    }

    /** The code, without the package line and the class's Javadoc (the README says it in prose). */
    private static String withoutPackageAndDocs(String source) {
        return source.replaceFirst("(?m)^package .*;\\n", "")
                .replaceAll("(?s)/\\*\\*.*?\\*/\\n", "")
                .strip();
    }
}
