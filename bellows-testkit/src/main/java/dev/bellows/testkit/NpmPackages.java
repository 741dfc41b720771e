package dev.bellows.testkit;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs npm packages for tests into a folder of the repository's git-ignored {@code .cache/},
 * so that tests run real programs from the npm registry (the reference MCP servers, say)
 * without anything installed by hand. Nothing is installed twice: a marker file remembers
 * what the folder holds.
 *
 * <p>Safe to call from several test JVMs at once (surefire's forks, the modules of a parallel
 * build): an install into a folder holds a file lock beside it ({@code <folder>.lock}), so a
 * second caller waits for the first install to finish and then finds it done.
 *
 * <p>Needs {@code node} and {@code npm} on {@code PATH}; when they are missing, or the install
 * fails, the exception says so plainly, with npm's output.
 */
public final class NpmPackages {

    private static final long GUARD_SECONDS = 600;
    static final String MARKER = ".bellows-installed";

    private NpmPackages() {
    }

    /** The repository root: the nearest folder holding {@code mvnw}, from the working directory up. */
    public static Path repoRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no mvnw above " + Path.of("").toAbsolutePath());
    }

    /** {@code <repo>/.cache/<name>}. */
    public static Path cacheDir(String name) {
        return repoRoot().resolve(".cache").resolve(name);
    }

    /**
     * Installs the packages (npm specs such as {@code @modelcontextprotocol/server-everything@2026.8.31})
     * into {@code dir} unless these are there already (a folder that holds them and more is
     * used as it is: asking for fewer never reinstalls under a test that runs the others).
     *
     * @return {@code dir/node_modules}
     * @throws IllegalStateException when node or npm is missing or the install fails
     */
    public static synchronized Path install(Path dir, String... specs) {
        requireNode();
        String wanted = String.join("\n", specs);
        Path marker = dir.resolve(MARKER);
        try {
            Files.createDirectories(dir.getParent());
            // The JVM's monitor (synchronized) keeps this JVM's threads apart; the file lock, other JVMs.
            try (FileChannel channel = FileChannel.open(dir.resolveSibling(dir.getFileName() + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock lock = channel.lock()) {
                if (Files.isRegularFile(marker)
                        && List.of(Files.readString(marker, StandardCharsets.UTF_8).split("\n")).containsAll(List.of(specs))) {
                    return dir.resolve("node_modules");
                }
                Files.createDirectories(dir);
                // --prefer-offline: what npm's own cache (~/.npm) holds is used without asking the
                // registry whether it changed (the packages are pinned; what is missing is still
                // fetched), which takes a fresh clone's install from about 18 s to 10.
                List<String> command = new ArrayList<>(List.of("npm", "install", "--prefer-offline", "--prefix",
                        dir.toString(), "--no-audit", "--no-fund", "--no-save", "--loglevel=error"));
                command.addAll(List.of(specs));
                Files.deleteIfExists(marker);   // other packages, or an install that broke off: not there yet
                String output = run(command);
                if (!Files.isDirectory(dir.resolve("node_modules"))) {
                    throw new IllegalStateException("npm install " + wanted + " made no node_modules:\n" + output);
                }
                // Written last: a marker means the install finished, so a broken one is redone next time.
                Files.writeString(marker, wanted, StandardCharsets.UTF_8);
                return dir.resolve("node_modules");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot install npm packages into " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * The version of the {@code node} on {@code PATH} ({@code v20.19.0}).
     *
     * @throws IllegalStateException naming what is missing
     */
    public static String requireNode() {
        try {
            return run(List.of("node", "--version")).strip();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("node is not on PATH (or does not run): these tests run programs from the "
                    + "npm registry and need Node.js 20 or newer with npm; install them (Debian: apt-get install "
                    + "nodejs npm). " + e.getMessage(), e);
        }
    }

    private static String run(List<String> command) {
        Path log = null;
        try {
            log = Files.createTempFile("bellows-npm", ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in " + GUARD_SECONDS
                        + " s:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed with status "
                        + process.exitValue() + ":\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", command) + " could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        } finally {
            if (log != null) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }
}
