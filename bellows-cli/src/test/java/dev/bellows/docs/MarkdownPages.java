package dev.bellows.docs;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The project's Markdown pages: every {@code .md} file of the repository but those in build
 * output ({@code target/}), installed packages ({@code node_modules/}) and the root's dot
 * folders ({@code .git}, {@code .cache}).
 *
 * <p>Those folders are not entered at all: they hold most of the tree's files (the tests'
 * npm installs alone are tens of thousands), and other test JVMs and modules of the build
 * write and delete files in them while the pages are read; a file that goes away in the
 * folders that are read (a test's scratch file) is passed over.
 */
final class MarkdownPages {

    private MarkdownPages() {
    }

    /** The repository's root: the nearest folder up from the working directory that holds mvnw. */
    static Path repositoryRoot() {
        Path directory = Path.of("").toAbsolutePath();
        while (directory != null && !Files.exists(directory.resolve("mvnw"))) {
            directory = directory.getParent();
        }
        if (directory == null) {
            throw new IllegalStateException("no repository root (a folder with mvnw) above " + Path.of("").toAbsolutePath());
        }
        return directory;
    }

    static List<Path> under(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                if (dir.equals(root)) {
                    return FileVisitResult.CONTINUE;
                }
                String relative = root.relativize(dir) + "/";
                return relative.startsWith(".") || relative.contains("target/") || relative.contains("node_modules/")
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String relative = root.relativize(file).toString();
                if (relative.endsWith(".md") && !relative.startsWith(".")) {
                    pages.add(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        pages.sort(null);
        return pages;
    }
}
