package dev.bellows.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real browser for the tests that look at a page: Debian's Chromium, driven from Node with
 * playwright-core (installed with {@link NpmPackages}). Needs JUnit on the test's class path
 * (a missing browser that cannot be installed skips the test, saying why).
 */
public final class Chromium {

    /** The playwright-core every browser test drives Chromium with. */
    public static final String PLAYWRIGHT = "playwright-core@1.65.1";

    private static final Path DEBIAN = Path.of("/usr/bin/chromium");

    private Chromium() {
    }

    /**
     * Debian's Chromium: there already, else installed with apt-get when the test runs as root
     * (as ChatTerminalTest does with tmux), else the test is skipped saying why.
     */
    public static Path debian() throws IOException, InterruptedException {
        if (Files.isExecutable(DEBIAN)) {
            return DEBIAN;
        }
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "Chromium is not installed (/usr/bin/chromium) and the test is not root to install it"
                        + " (apt-get install chromium chromium-driver)");
        File log = File.createTempFile("apt-chromium", ".log");
        try {
            Process install = new ProcessBuilder("sh", "-c", "apt-get install -y chromium chromium-driver"
                    + " || (apt-get update && apt-get install -y chromium chromium-driver)")
                    .redirectErrorStream(true).redirectOutput(log).start();
            boolean ended = install.waitFor(900, TimeUnit.SECONDS);      // a hang guard, not a measure
            if (!ended) {
                install.destroyForcibly();
            }
            Assumptions.assumeTrue(ended && install.exitValue() == 0 && Files.isExecutable(DEBIAN),
                    () -> "Chromium is missing and apt-get could not install it: " + tail(log.toPath()));
            return DEBIAN;
        } finally {
            Files.deleteIfExists(log.toPath());
        }
    }

    /** playwright-core, installed once into {@code .cache/playwright}: the path to require. */
    public static Path playwright() {
        NpmPackages.requireNode();
        return NpmPackages.install(NpmPackages.cacheDir("playwright"), PLAYWRIGHT).resolve("playwright-core");
    }

    private static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no output)";
        }
    }
}
