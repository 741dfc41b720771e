package dev.bellows.buildcheck;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Java sources compiled into a folder of classes, as a module's target/classes. */
final class Compiled {

    private Compiled() {
    }

    /** Compiles the sources (path -> text) under {@code root}/src into {@code root}/classes; that folder. */
    static Path classes(Path root, Map<String, String> sources, String... options) throws IOException {
        Path src = root.resolve("src");
        Path classes = root.resolve("classes");
        Files.createDirectories(classes);
        List<String> args = new ArrayList<>(List.of("--release", "21", "-XDsuppressNotes", "-d", classes.toString()));
        args.addAll(List.of(options));
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = src.resolve(source.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int status = javac.run(null, null, null, args.toArray(String[]::new));
        if (status != 0) {
            throw new IllegalStateException("javac failed: " + status);
        }
        return classes;
    }

    static ClassLoader loader(Path... classes) throws IOException {
        URL[] urls = new URL[classes.length];
        for (int i = 0; i < classes.length; i++) {
            urls[i] = classes[i].toUri().toURL();
        }
        return new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
    }
}
