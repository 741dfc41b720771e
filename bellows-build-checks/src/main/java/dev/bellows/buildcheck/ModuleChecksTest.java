package dev.bellows.buildcheck;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The build's checks of the module whose tests run it: bellows-parent puts this jar on every
 * module's test class path, has Surefire scan it for tests, and passes the module's place in
 * system properties ({@code bellows.checks.*}). With {@code bellows.checks.mode=record}
 * ({@code -Dbellows.record}) it records instead of comparing. The module's classes are read
 * from its class path, the test JVM's, never initialised.
 */
public class ModuleChecksTest {

    private final String mode = System.getProperty("bellows.checks.mode", "check");
    private final String artifact = System.getProperty("bellows.checks.artifact");

    /** Creates the test (JUnit does). */
    public ModuleChecksTest() {
    }

    /** The public API is the one recorded in {@code api/ARTIFACT.api}. */
    @Test
    void publicApiIsTheRecordedOne() throws Exception {
        Assumptions.assumeTrue(Boolean.parseBoolean(System.getProperty("bellows.api.check", "true")),
                "not a library: its API is not recorded");
        report(BuildChecks.api(module(), artifact, classes(), getClass().getClassLoader(), record()));
    }

    /** A library has a module-info; what it exports to everyone is API, every other package is .internal. */
    @Test
    void modulesExportTheirApiAndHideTheRest() throws Exception {
        report(ModuleRules.check(artifact, classes(), System.getProperty("bellows.moduleInfo", "none")));
    }

    /** No package cycle but the accepted ones, and each of them still there. */
    @Test
    void noPackageCyclesButTheAcceptedOnes() throws Exception {
        report(BuildChecks.cycles(module(), artifact, classes(), record()));
    }

    /** One Jackson, configured once: no mapper is made but core's shared ones. */
    @Test
    void noJacksonMapperButTheSharedOnes() throws Exception {
        report(OwnMappers.check(artifact, classes()));
    }

    /**
     * An application (no recorded API: bellows-cli, bellows-bench) uses only what the modules
     * export, but the internal types its pom allows.
     */
    @Test
    void applicationsUseOnlyWhatTheModulesExport() throws Exception {
        Assumptions.assumeFalse(Boolean.parseBoolean(System.getProperty("bellows.api.check", "true")), "a library");
        report(InternalUses.check(artifact, classes(),
                InternalUses.allowed(System.getProperty("bellows.internals.allowed", ""))));
    }

    private boolean record() {
        if (!List.of("check", "record").contains(mode)) {
            throw new IllegalArgumentException("bellows.checks.mode is check or record, not " + mode);
        }
        return mode.equals("record");
    }

    private static Path module() {
        return Path.of(required("bellows.checks.module"));
    }

    private static Path classes() {
        Path classes = Path.of(required("bellows.checks.classes"));
        Assumptions.assumeTrue(Files.isDirectory(classes), "no classes");
        return classes;
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        Assumptions.assumeTrue(value != null, "not run by the build (no " + property + ")");
        return value;
    }

    private static void report(List<String> problems) {
        if (!problems.isEmpty()) {
            throw new AssertionError("\n" + String.join("\n\n", problems));
        }
    }
}
