package dev.bellows.cli;

import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/**
 * The command line of a short-lived child JVM on the tests' own classpath ({@code bellows worker},
 * {@code bellows run}, {@code chat}, {@code serve}), which starts on the class data of a JVM that
 * ran before it: the classes a training run loaded (picocli, Jackson, the HTTP client, bellows
 * itself; Temporal's SDK, gRPC, Netty and protobuf for a worker) are mapped from a
 * class-data-sharing archive instead of read, parsed and verified again by every process, which
 * halves a child's start-up CPU. Only classes from jar files can be archived, so the classpath's
 * directories ({@code target/classes} of each module) are copied into jars first, once per test
 * JVM. If the archive cannot be made or used, the children start as before (the JVM says nothing
 * of it).
 *
 * <p>Every child runs with C1 alone and the serial collector: a short-lived JVM on two loaded
 * cores spends less of its start-up compiling and setting up a collector's threads, and what it
 * does is the same. A test adds options of its own after {@link #java()}, before the main class.
 *
 * <p>Everything lives in a folder of {@code target/} of this JVM's own, removed when it exits.
 * Thread-safe.
 */
final class ChildJvm {

    /** This JVM's folder, its jarred classpath and its archives, made on first use. */
    private static Path folder;
    private static String jarred;
    private static int archives;
    /** {@link #bellows()}'s, trained once per test JVM. */
    private static ChildJvm bellows;

    private final List<String> command;

    private ChildJvm(List<String> command) {
        this.command = List.copyOf(command);
    }

    /**
     * {@code java OPTIONS -cp CLASSPATH}: what the child's main class and arguments follow.
     * The same for every child; thread-safe.
     */
    List<String> java() {
        return command;
    }

    /**
     * {@link #java()} as one line for {@code sh}, each word in single quotes (none of them holds
     * one: paths under {@code target/}, the JDK's, options).
     */
    String shell() {
        return command.stream().map(word -> "'" + word + "'").collect(Collectors.joining(" "));
    }

    /** The options every child gets, the training run too (an archive is used only with the options it was made with). */
    private static List<String> options() {
        List<String> options = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        if (Runtime.version().feature() >= 24) {
            options.add("--sun-misc-unsafe-memory-access=allow");      // as bin/bellows does: gRPC's warnings
        }
        return options;
    }

    /**
     * The children of the tests that run {@code bellows} commands other than {@code worker}:
     * trained, once per test JVM, on a {@code bellows run} of a session against a mock model
     * that streams a thought, a plan and a tool call, so that the archive holds the agent loop,
     * the stream's parsing, the sessions' store and the commands' own classes ({@code chat},
     * {@code serve} and the rest load a few of their own on top).
     */
    static synchronized ChildJvm bellows() {
        if (bellows == null) {
            try (MockLlmServer model = MockLlmServer.start(MockScript.of(
                    MockTurn.content(RunCommandTest.PLAN).chunkSize(8),
                    MockTurn.content(RunCommandTest.complete("trained")).chunkSize(8)))) {
                Path data = folder().resolve("training-data");
                bellows = trained(List.of(BellowsCommand.class.getName(), "run", "--base-url",
                                model.baseUrl().toString(), "--model", "mock", "--session", "training",
                                "--data-dir", data.toString(), "--output", "jsonl", "Train"),
                        Map.of("HOME", folder().toString()), "\"loop_end\"");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return bellows;
    }

    /**
     * Runs {@code training} (a main class and its arguments) with {@code env} added, until it
     * writes {@code ready} on standard output (then stops it with SIGTERM) or ends by itself; the
     * classes it loaded are archived as it exits. Returns the children's command line.
     */
    static ChildJvm trained(List<String> training, Map<String, String> env, String ready) {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> plain = new ArrayList<>(List.of(javaBin));
        plain.addAll(options());
        plain.addAll(List.of("-cp", System.getProperty("java.class.path")));
        try {
            String classpath = jarredClasspath();
            String name = "classes-" + nextArchive();
            Path archive = folder().resolve(name + ".jsa");

            List<String> train = new ArrayList<>(List.of(javaBin));
            train.addAll(options());
            train.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-cp", classpath));
            train.addAll(training);
            Path out = folder().resolve(name + ".out");
            ProcessBuilder builder = new ProcessBuilder(train).redirectOutput(out.toFile())
                    .redirectError(folder().resolve(name + ".err").toFile());
            builder.environment().putAll(env);
            Process process = builder.start();
            while (process.isAlive() && !Files.readString(out).contains(ready)) {
                Thread.sleep(100);
            }
            process.destroy();                              // SIGTERM: the JVM exits, and archives as it does
            if (!process.waitFor(120, TimeUnit.SECONDS)) {  // a hang guard, not a measure
                process.destroyForcibly().waitFor();
                return new ChildJvm(plain);
            }
            if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
                return new ChildJvm(plain);
            }
            List<String> shared = new ArrayList<>(List.of(javaBin));
            shared.addAll(options());
            shared.add("-XX:SharedArchiveFile=" + archive);
            // Should the archive not fit (it always should), the JVM says so on stdout unless told not to.
            shared.add("-Xlog:cds*=off");
            shared.add("-Xlog:class+path*=off");
            if (Runtime.version().feature() >= 24) {
                shared.add("-Xlog:aot*=off");
            }
            shared.addAll(List.of("-cp", classpath));
            return new ChildJvm(shared);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ChildJvm(plain);
        }
    }

    private static synchronized int nextArchive() {
        return ++archives;
    }

    /** This JVM's folder under {@code target/}, made on first use and deleted when the JVM exits. */
    private static synchronized Path folder() throws IOException {
        if (folder == null) {
            Path made = Files.createDirectories(target().resolve("child-jvm-" + ProcessHandle.current().pid()));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(made), "delete-child-jvm"));
            folder = made;
        }
        return folder;
    }

    /** This module's {@code target/}: where its test classes are. */
    private static Path target() {
        try {
            return Path.of(ChildJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * This JVM's classpath, each directory in it copied into a jar, in the same order; jar files
     * are kept as they are. What a class-data archive of these classes needs (McpConformanceTest's
     * clients use it too). Packed once per JVM: a running child's jars are never rewritten.
     */
    static synchronized String jarredClasspath() throws IOException {
        if (jarred == null) {
            Path jars = Files.createDirectories(folder().resolve("classpath"));
            List<String> entries = new ArrayList<>();
            int n = 0;
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path path = Path.of(entry);
                if (!Files.isDirectory(path)) {
                    entries.add(entry);
                    continue;
                }
                Path jar = jars.resolve(String.format("%02d-%s-%s.jar", n++, path.getParent().getParent().getFileName(),
                        path.getFileName()));
                jar(path, jar);
                entries.add(jar.toString());
            }
            jarred = String.join(File.pathSeparator, entries);
        }
        return jarred;
    }

    /** Copies a folder of classes and resources into a jar, uncompressed (a quick copy, a quick read). */
    private static void jar(Path from, Path to) throws IOException {
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(to));
             Stream<Path> files = Files.walk(from)) {
            for (Path file : files.sorted().toList()) {
                String name = from.relativize(file).toString().replace(File.separatorChar, '/');
                if (name.isEmpty()) {
                    continue;
                }
                if (Files.isDirectory(file)) {
                    JarEntry entry = new JarEntry(name + "/");
                    entry.setMethod(ZipEntry.STORED);
                    entry.setSize(0);
                    entry.setCrc(new CRC32().getValue());
                    jar.putNextEntry(entry);
                } else {
                    byte[] bytes = Files.readAllBytes(file);
                    CRC32 crc = new CRC32();
                    crc.update(bytes);
                    JarEntry entry = new JarEntry(name);
                    entry.setMethod(ZipEntry.STORED);
                    entry.setSize(bytes.length);
                    entry.setCrc(crc.getValue());
                    jar.putNextEntry(entry);
                    jar.write(bytes);
                }
                jar.closeEntry();
            }
        }
    }

    private static void delete(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException ignored) {
            // target/ is cleaned by the next build anyway
        }
    }
}
