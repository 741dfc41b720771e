package dev.bellows.buildcheck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * An application (bellows-bench, bellows-cli: no module-info, no recorded API) runs on the class
 * path, where every library's {@code .internal} packages load, so javac does not hold it to what
 * the modules export (issue 32: "bench and tests of other modules reach only what is exported").
 * This does: no class of the application names a type of a Bellows {@code .internal} package
 * but those its pom allows ({@code bellows.internals.allowed}, each with its reason in
 * docs/modules.md). Read from the class files' bytes: a type a class uses is named there in its
 * internal form ({@code dev/bellows/x/internal/Y}), whatever the source.
 */
final class InternalUses {

    private static final Pattern INTERNAL = Pattern.compile("dev/bellows/(?:[a-z0-9_]+/)*internal/[A-Za-z0-9_]+");

    private InternalUses() {
    }

    /**
     * The classes under {@code classes} that use an internal type not in {@code allowed} (binary
     * names, {@code dev.bellows.x.internal.Y}), as one message; none when they use none.
     */
    static List<String> check(String artifact, Path classes, Collection<String> allowed) throws IOException {
        Set<String> found = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String name = classes.relativize(file).toString().replace('\\', '/');
                String user = name.substring(0, name.length() - ".class".length()).replace('/', '.');
                // ISO-8859-1 keeps every byte as one char: the ASCII names stay as they are
                Matcher used = INTERNAL.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                while (used.find()) {
                    String type = used.group().replace('/', '.');
                    if (!allowed.contains(type) && !user.startsWith(type.substring(0, type.lastIndexOf('.') + 1))) {
                        found.add(user + " uses " + type);
                    }
                }
            }
        }
        if (found.isEmpty()) {
            return List.of();
        }
        return List.of(artifact + " uses internal types of Bellows' modules:\n  " + String.join("\n  ", found)
                + "\nUse the modules' exported API instead (DEVELOPERS.md, \"Modules\"); an application that truly"
                + " needs one names it in its pom's bellows.internals.allowed and says why in docs/modules.md.");
    }

    /** The allowed types from the property's text: binary names, separated by commas or white space. */
    static List<String> allowed(String property) {
        List<String> types = new ArrayList<>();
        for (String type : property.split("[,\\s]+")) {
            if (!type.isEmpty()) {
                types.add(type);
            }
        }
        return types;
    }
}
