package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bellows} rebuilds its jar when a source is newer. Runs the real script in a copy
 * of the repository's layout whose {@code mvnw} only notes that it was called and writes the
 * jar: a real build would take minutes.
 */
class LauncherRebuildTest {

    private static final Instant JAR_TIME = Instant.parse("2025-06-01T12:00:00Z");

    @TempDir
    Path root;

    private Path jar;
    private Path source;

    @BeforeEach
    void layout() throws IOException {
        copyScripts(root);
        Path mvnw = Files.writeString(root.resolve("mvnw"), """
                #!/bin/sh
                echo "$@" >> "$(dirname "$0")/mvnw.calls"
                mkdir -p "$(dirname "$0")/bellows-cli/target"
                touch "$(dirname "$0")/bellows-cli/target/bellows.jar"
                """);
        Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        source = root.resolve("bellows-core/src/main/java/A.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "class A {}");
        Files.createDirectories(root.resolve("bellows-bench/src/main/java"));
        Files.writeString(root.resolve("bellows-bench/src/main/java/B.java"), "class B {}");
        jar = root.resolve("bellows-cli/target/bellows.jar");
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, "not a real jar");
        for (Path file : new Path[] {root.resolve("pom.xml"), source, root.resolve("bellows-bench/src/main/java/B.java")}) {
            Files.setLastModifiedTime(file, FileTime.from(JAR_TIME.minusSeconds(3600)));
        }
        Files.setLastModifiedTime(jar, FileTime.from(JAR_TIME));
    }

    /** The repository's bin/bellows and bin/find-jdk, copied into {@code root}'s bin/. */
    static void copyScripts(Path root) throws IOException {
        Path repository = Path.of("..").toAbsolutePath().normalize();
        Files.createDirectories(root.resolve("bin"));
        for (String script : new String[] {"bellows", "find-jdk"}) {
            Path copy = Files.copy(repository.resolve("bin").resolve(script), root.resolve("bin").resolve(script));
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private String run(String... env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(root.resolve("bin/bellows").toString(), "--version")
                .redirectErrorStream(true);
        for (int i = 0; i < env.length; i += 2) {
            builder.environment().put(env[i], env[i + 1]);
        }
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue(); // a hang guard
        return out;
    }

    private boolean rebuilt() {
        return Files.exists(root.resolve("mvnw.calls"));
    }

    @Test
    void aJarNewerThanEverySourceIsUsedAsItIs() throws Exception {
        String out = run();
        assertThat(out).doesNotContain("rebuilding");
        assertThat(rebuilt()).isFalse();
    }

    @Test
    void aNewerSourceRebuildsTheCliAndWhatItNeeds() throws Exception {
        Files.setLastModifiedTime(source, FileTime.from(JAR_TIME.plusSeconds(60)));
        String out = run();
        assertThat(out).contains("bellows: sources changed since the last build (bellows-core/src/main/java/A.java),"
                + " rebuilding...");
        assertThat(Files.readString(root.resolve("mvnw.calls"))).contains("-pl bellows-cli -am package -DskipTests");
    }

    @Test
    void aNewerPomRebuildsButTheBenchmarksDoNot() throws Exception {
        Files.setLastModifiedTime(root.resolve("bellows-bench/src/main/java/B.java"),
                FileTime.from(JAR_TIME.plusSeconds(60)));
        run();
        assertThat(rebuilt()).isFalse();
        Files.setLastModifiedTime(root.resolve("pom.xml"), FileTime.from(JAR_TIME.plusSeconds(60)));
        assertThat(run()).contains("(pom.xml), rebuilding...");
    }

    @Test
    void theCheckCanBeTurnedOff() throws Exception {
        Files.setLastModifiedTime(source, FileTime.from(JAR_TIME.plusSeconds(60)));
        run("BELLOWS_NO_REBUILD", "1");
        assertThat(rebuilt()).isFalse();
    }
}
