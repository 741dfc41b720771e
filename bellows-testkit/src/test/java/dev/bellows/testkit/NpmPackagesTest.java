package dev.bellows.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What makes {@link NpmPackages} safe for test JVMs running at once. The specs are local folders
 * that do not exist: had an install run npm, it would have failed, so a passing test shows that
 * none did.
 */
class NpmPackagesTest {

    @TempDir
    Path tmp;

    private String missing(String name) {
        return "file:" + tmp.resolve("no-such-" + name);
    }

    @Test
    void aFolderHoldingMoreThanAskedForIsUsedAsItIs() throws IOException {
        Path dir = tmp.resolve("packages");
        String a = missing("a");
        String b = missing("b");
        HoldsTheInstallLock.installed(dir, a, b);
        assertThat(NpmPackages.install(dir, a)).isEqualTo(dir.resolve("node_modules"));
        assertThat(NpmPackages.install(dir, b, a)).isEqualTo(dir.resolve("node_modules"));
        assertThat(Files.readString(dir.resolve(NpmPackages.MARKER))).isEqualTo(a + "\n" + b);
    }

    @Test
    void anInstallWaitsForTheOneAnotherJvmHasUnderWayAndFindsItDone() throws Exception {
        Path dir = tmp.resolve("packages");
        String a = missing("a");
        Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), HoldsTheInstallLock.class.getName(), dir.toString(), a)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader said = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
            assertThat(said.readLine()).isEqualTo("locked");
            CompletableFuture<Path> install = Background.supply(() -> NpmPackages.install(dir, a));
            // The kernel lists a request blocked on the lock file once the install waits for it.
            long inode = (Long) Files.getAttribute(HoldsTheInstallLock.lockFile(dir), "unix:ino");
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);       // a hang guard
            while (!blockedOn(inode)) {
                assertThat(install).as("the install went ahead under the other JVM's lock").isNotDone();
                assertThat(System.nanoTime()).as("no request blocked on the lock").isLessThan(giveUp);
                Thread.sleep(20);
            }
            other.getOutputStream().close();              // the other JVM finishes its install and lets go
            assertThat(install.get(60, TimeUnit.SECONDS)).isEqualTo(dir.resolve("node_modules"));
            assertThat(other.waitFor()).isZero();
        } finally {
            other.destroyForcibly();
        }
    }

    /** Whether {@code /proc/locks} has a blocked request ({@code ->}) on the inode. */
    private static boolean blockedOn(long inode) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/locks"))) {
            List<String> fields = List.of(line.trim().split("\\s+"));
            if (fields.size() > 6 && fields.get(1).equals("->") && fields.get(6).endsWith(":" + inode)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Another test JVM's install: takes the lock, says {@code locked}, and when its standard
     * input closes leaves the packages installed and lets go.
     */
    static final class HoldsTheInstallLock {

        static Path lockFile(Path dir) {
            return dir.resolveSibling(dir.getFileName() + ".lock");
        }

        static void installed(Path dir, String... specs) throws IOException {
            Files.createDirectories(dir.resolve("node_modules"));
            Files.writeString(dir.resolve(NpmPackages.MARKER), String.join("\n", specs));
        }

        public static void main(String[] args) throws IOException {
            Path dir = Path.of(args[0]);
            Files.createDirectories(dir.getParent());
            try (FileChannel channel = FileChannel.open(lockFile(dir), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock lock = channel.lock()) {
                System.out.println("locked");
                System.out.flush();
                System.in.readAllBytes();
                installed(dir, List.of(args).subList(1, args.length).toArray(String[]::new));
            }
        }
    }
}
