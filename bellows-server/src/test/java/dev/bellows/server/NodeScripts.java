package dev.bellows.server;

import dev.bellows.testkit.Background;
import dev.bellows.testkit.Chromium;
import dev.bellows.testkit.NpmPackages;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs the official npm clients and the browser driver for the interop and page tests. */
final class NodeScripts {

    record Result(int status, String out, String err) {
    }

    private NodeScripts() {
    }

    /** The script, a test resource, copied to {@code dir}. */
    static Path resource(String name, Path dir) throws IOException {
        try (InputStream in = NodeScripts.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource " + name);
            }
            Path file = dir.resolve(name);
            Files.write(file, in.readAllBytes());
            return file;
        }
    }

    /** Packages installed once into {@code .cache/<name>} (git-ignored); node_modules. */
    static Path install(String name, String... specs) {
        NpmPackages.requireNode();
        return NpmPackages.install(NpmPackages.cacheDir(name), specs);
    }

    static Result run(List<String> command, Map<String, String> env, long timeoutSeconds) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        Process process = builder.start();
        CompletableFuture<String> out = Background.supply(() -> read(process.getInputStream()));
        CompletableFuture<String> err = Background.supply(() -> read(process.getErrorStream()));
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not end in " + timeoutSeconds + " s; stderr: " + err.getNow(""));
        }
        return new Result(process.exitValue(), out.get(), err.get());
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Debian's Chromium (testkit's {@link Chromium#debian()}: installed when missing, or the test skipped). */
    static Path chromium() throws Exception {
        return Chromium.debian();
    }
}
