package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bellows} starts the jar on a class-data-sharing archive of its own command, made
 * by that command's first start, keyed to the jar (a rebuilt jar gets a new one), and prints
 * nothing of it: standard output is the program's alone. Runs the real script on a small real
 * jar whose program prints a line; where the JVM took the program's class from is in its class
 * loading log (JAVA_TOOL_OPTIONS).
 */
class LauncherCdsTest {

    private static final String PROGRAM = """
            public class Hello {
                public static void main(String[] args) {
                    System.out.println("hello " + String.join(" ", args));
                }
            }
            """;

    @TempDir
    Path root;

    private Path jar;

    @BeforeEach
    void layout() throws IOException {
        LauncherRebuildTest.copyScripts(root);
        Path classes = Files.createDirectories(root.resolve("classes"));
        Path source = Files.writeString(root.resolve("Hello.java"), PROGRAM);
        assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), source.toString()))
                .isZero();
        jar = Files.createDirectories(root.resolve("bellows-cli/target")).resolve("bellows.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Hello");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry("Hello.class"));
            out.write(Files.readAllBytes(classes.resolve("Hello.class")));
            out.closeEntry();
        }
    }

    /** Standard output and error, and where the JVM took the class Hello from. */
    private record Started(String out, String err, String helloFrom) {
    }

    private Started start(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(root.resolve("bin/bellows").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(root.resolve("err.txt").toFile());
        builder.environment().put("BELLOWS_NO_REBUILD", "1");
        builder.environment().remove("BELLOWS_CDS");
        Path loads = root.resolve("loads.txt");
        Files.deleteIfExists(loads);
        builder.environment().put("JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + loads);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue(); // a hang guard
        String err = Files.readString(root.resolve("err.txt"));
        assertThat(process.exitValue()).as(err).isZero();
        String hello = Files.readAllLines(loads).stream().filter(line -> line.contains(" Hello source: ")).findFirst()
                .orElse("Hello not loaded");
        return new Started(out, err, hello.substring(hello.indexOf("source: ") + "source: ".length()));
    }

    private List<String> archives() throws IOException {
        try (Stream<Path> files = Files.list(jar.getParent())) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("bellows-cds-")).sorted().toList();
        }
    }

    private String key() throws IOException {
        return Files.getLastModifiedTime(jar).toMillis() / 1000 + "-" + Files.size(jar);
    }

    @Test
    void eachCommandStartsOnAnArchiveOfItsOwnMadeByItsFirstStartAndNothingOfItIsPrinted() throws Exception {
        Started first = start("--version");
        assertThat(first.out()).isEqualTo("hello --version\n");
        assertThat(first.helloFrom()).startsWith("file:");
        assertThat(first.err()).doesNotContain("cds");
        assertThat(archives()).singleElement().asString().startsWith("bellows-cds-" + key() + "-other.jsa.");

        Started second = start("--version");       // the finished dump takes its name, and is used
        assertThat(second.out()).isEqualTo("hello --version\n");
        String archive = "bellows-cds-" + key() + "-other.jsa";
        assertThat(archives()).containsExactly(archive);
        assertThat(second.helloFrom()).startsWith("shared objects file");

        Started serve = start("serve", "--port", "0");   // another command: an archive of its own
        assertThat(serve.out()).isEqualTo("hello serve --port 0\n");
        String serveArchive = "bellows-cds-" + key() + "-serve.jsa.";
        assertThat(archives()).hasSize(2).contains(archive).anyMatch(n -> n.startsWith(serveArchive));

        // a rebuilt jar: the archives of the old one go, the new one's first start makes its own
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(120)));
        Started rebuilt = start("--version");
        assertThat(rebuilt.out()).isEqualTo("hello --version\n");
        assertThat(rebuilt.helloFrom()).startsWith("file:");
        assertThat(archives()).singleElement().asString().startsWith("bellows-cds-" + key() + "-other.jsa.");
    }
}
