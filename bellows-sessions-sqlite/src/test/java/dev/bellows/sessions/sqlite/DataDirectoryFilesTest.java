package dev.bellows.sessions.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's files: owner-only whatever the directory and umask, never reached through a planted link. */
class DataDirectoryFilesTest {

    @TempDir
    Path dir;

    private static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void files_created_in_a_pre_existing_world_readable_directory_are_owner_only() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        try (SqliteSessionStore store = SqliteSessionStore.open(data);
             StoredSession session = store.open("a")) {
            session.putMetadata(java.util.Map.of("k", "v")); // a write: the WAL files appear
            List<Path> files;
            try (Stream<Path> walk = Files.walk(data)) {
                files = walk.filter(p -> !p.equals(data)).toList();
            }
            assertThat(files).extracting(p -> data.relativize(p).toString())
                    .contains("sessions.db", "sessions.db-wal", "sessions.db-shm", "locks", "locks/a.lock");
            for (Path file : files) {
                assertThat(mode(file)).as(file.toString()).isEqualTo(Files.isDirectory(file) ? "rwx------" : "rw-------");
            }
        }
    }

    @Test
    void a_new_data_directory_is_owner_only() throws Exception {
        Path data = dir.resolve("new/data");
        try (SqliteSessionStore store = SqliteSessionStore.open(data)) {
            assertThat(mode(data)).isEqualTo("rwx------");
        }
    }

    @Test
    void a_lock_file_planted_as_a_link_is_an_error_naming_it_and_its_target_is_untouched() throws Exception {
        Path data = dir.resolve("data");
        Path target = Files.writeString(dir.resolve("precious.txt"), "keep me\n");
        try (SqliteSessionStore store = SqliteSessionStore.open(data)) {
            Files.createDirectories(data.resolve("locks"));
            Files.createSymbolicLink(data.resolve("locks/x.lock"), target);
            assertThatThrownBy(() -> store.open("x")).isInstanceOf(SessionStoreException.class)
                    .hasMessageContaining(data.resolve("locks/x.lock").toString()).hasMessageContaining("symbolic link");
        }
        assertThat(Files.readString(target)).isEqualTo("keep me\n");
    }

    @Test
    void a_database_or_locks_directory_planted_as_a_link_is_an_error_naming_it() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Path target = Files.writeString(dir.resolve("precious.db"), "keep me\n");
        Files.createSymbolicLink(data.resolve("sessions.db"), target);
        assertThatThrownBy(() -> SqliteSessionStore.open(data)).isInstanceOf(SessionStoreException.class)
                .hasMessageContaining(data.resolve("sessions.db").toString()).hasMessageContaining("symbolic link");
        assertThat(Files.readString(target)).isEqualTo("keep me\n");

        Files.delete(data.resolve("sessions.db"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.createSymbolicLink(data.resolve("locks"), elsewhere);
        try (SqliteSessionStore store = SqliteSessionStore.open(data)) {
            assertThatThrownBy(() -> store.open("y")).isInstanceOf(SessionStoreException.class)
                    .hasMessageContaining(data.resolve("locks").toString());
        }
        try (Stream<Path> files = Files.list(elsewhere)) {
            assertThat(files).isEmpty();
        }
    }
}
