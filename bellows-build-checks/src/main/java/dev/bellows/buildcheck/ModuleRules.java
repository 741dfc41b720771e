package dev.bellows.buildcheck;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The module rules of a library (docs/modules.md): it has a {@code module-info}, every package
 * it exports to everyone is API, and every other package is an {@code .internal} one, exported
 * to no one or, qualified, to the named sibling modules that need it. So a public type is API
 * exactly when its package is exported, and the recorded API ({@link PublicApi}) is the
 * exported one.
 */
final class ModuleRules {

    /** What a module must have: a module-info ({@code required}), or nothing checked ({@code none}). */
    static final List<String> KINDS = List.of("required", "none");

    private ModuleRules() {
    }

    /** The rules' problems for the classes under {@code classes}, as messages that say what to do. */
    static List<String> check(String artifact, Path classes, String kind) throws IOException {
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException("bellows.moduleInfo is one of " + KINDS + ", not " + kind);
        }
        Path moduleInfo = classes.resolve("module-info.class");
        List<String> problems = new ArrayList<>();
        if (!Files.exists(moduleInfo)) {
            if (kind.equals("required")) {
                problems.add(artifact + " is a library without a module-info.java: add one that exports its API packages"
                        + " (everything else in .internal packages), or, when a dependency makes a named module"
                        + " impossible, say why in its pom, give the jar an Automatic-Module-Name and set the property"
                        + " bellows.moduleInfo to none.");
            }
            return problems;
        }
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(moduleInfo)) {
            descriptor = ModuleDescriptor.read(in);
        }
        Set<String> everyone = new TreeSet<>();
        for (ModuleDescriptor.Exports export : descriptor.exports()) {
            boolean internal = PublicApi.isInternal(export.source());
            if (!export.isQualified()) {
                everyone.add(export.source());
                if (internal) {
                    problems.add(artifact + " exports " + export.source() + " to everyone, but an .internal package is"
                            + " not API: export it to the modules that need it (exports ... to ...), or move what"
                            + " users need out of it.");
                }
            } else if (!internal) {
                problems.add(artifact + " exports " + export.source() + " only to " + new TreeSet<>(export.targets())
                        + ": a package that is not API for everyone belongs in an .internal package.");
            }
        }
        for (String pkg : packages(classes)) {
            if (!everyone.contains(pkg) && !PublicApi.isInternal(pkg)) {
                problems.add(artifact + "'s package " + pkg + " is neither exported nor .internal: export it in"
                        + " module-info.java when it is API, or move it (tools/api-move) under an .internal package.");
            }
        }
        return problems;
    }

    private static Set<String> packages(Path classes) throws IOException {
        try (Stream<Path> files = Files.walk(classes)) {
            Set<String> packages = new TreeSet<>();
            files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().equals("module-info.class"))
                    .forEach(f -> {
                        Path dir = classes.relativize(f).getParent();
                        packages.add(dir == null ? "" : dir.toString().replace(classes.getFileSystem().getSeparator(), "."));
                    });
            return packages;
        }
    }
}
