package dev.bellows.sessions.sqlite;

import dev.bellows.memory.SessionStoreException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The store's files in its directory: created readable by their owner only ({@code 0600},
 * directories {@code 0700}), whatever the umask and whether or not the directory existed, and
 * never reached through a symbolic link, so that a link planted there cannot make the store
 * write (a pid, a database) into the file it points to.
 */
final class PrivateFiles {

    static final String FILE_MODE = "rw-------";
    static final String DIRECTORY_MODE = "rwx------";

    private PrivateFiles() {
    }

    /** Fails, naming the path, when it is a symbolic link. */
    static void refuseLink(Path path) {
        if (Files.isSymbolicLink(path)) {
            throw new SessionStoreException(path + " is a symbolic link; Bellows does not open files through"
                    + " links in its data directory (remove it)");
        }
    }

    /** Creates {@code file} empty and owner-only unless it exists; a link in its place is refused. */
    static void create(Path file) {
        refuseLink(file);
        try {
            Files.createFile(file, attributes(FILE_MODE));
        } catch (FileAlreadyExistsException e) {
            refuseLink(file); // planted meanwhile
        } catch (IOException e) {
            throw new SessionStoreException("cannot create " + file + ": " + e.getMessage(), e);
        }
    }

    /** Creates {@code dir} owner-only unless it exists as a directory (not a link to one). */
    static void createDirectory(Path dir) {
        refuseLink(dir);
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(dir, attributes(DIRECTORY_MODE));
            }
        } catch (FileAlreadyExistsException e) {
            refuseLink(dir);
        } catch (IOException e) {
            throw new SessionStoreException("cannot create " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The permissions to create with, on file systems that have POSIX ones. */
    static FileAttribute<?>[] attributes(String mode) {
        if (!java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        Set<PosixFilePermission> permissions = PosixFilePermissions.fromString(mode);
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)};
    }
}
