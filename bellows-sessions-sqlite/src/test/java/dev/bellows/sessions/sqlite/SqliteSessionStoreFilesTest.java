package dev.bellows.sessions.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.provider.Message;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What is particular to the SQLite store: where its file lives, its mode, its schema version. */
class SqliteSessionStoreFilesTest {

    @TempDir
    Path temp;

    @Test
    void theDefaultDirectoryFollowsXdg() {
        Path home = Path.of("/home/ada");
        assertThat(SqliteSessionStore.defaultDirectory("/data", home)).isEqualTo(Path.of("/data/bellows"));
        assertThat(SqliteSessionStore.defaultDirectory(null, home)).isEqualTo(Path.of("/home/ada/.local/share/bellows"));
        assertThat(SqliteSessionStore.defaultDirectory("", home)).isEqualTo(Path.of("/home/ada/.local/share/bellows"));
        // the XDG spec: a relative path is invalid and ignored
        assertThat(SqliteSessionStore.defaultDirectory("relative/dir", home))
                .isEqualTo(Path.of("/home/ada/.local/share/bellows"));
    }

    @Test
    void aNewDirectoryIsPrivateAndTheDatabaseIsInWalMode() throws Exception {
        Path dir = temp.resolve("a/b/bellows");
        try (SqliteSessionStore store = SqliteSessionStore.open(dir); StoredSession session = store.open("s")) {
            session.append(List.of(Message.user("hello")));
            assertThat(store.databaseFile()).isEqualTo(dir.resolve("sessions.db"));
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("sessions.db"));
             Statement statement = connection.createStatement();
             ResultSet mode = statement.executeQuery("PRAGMA journal_mode")) {
            mode.next();
            assertThat(mode.getString(1)).isEqualTo("wal");
        }
    }

    @Test
    void aDatabaseFromANewerBellowsIsRefusedClearly() throws Exception {
        SqliteSessionStore.open(temp).close();
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + temp.resolve("sessions.db"));
             Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA user_version = 99");
        }
        assertThatThrownBy(() -> SqliteSessionStore.open(temp)).isInstanceOf(SessionStoreException.class)
                .hasMessageContaining("schema version 99").hasMessageContaining("upgrade Bellows");
    }

    @Test
    void aFileThatIsNotADatabaseIsReportedWithItsPath() throws Exception {
        Files.writeString(temp.resolve("sessions.db"), "this is not sqlite, just text long enough to be read as a header");
        assertThatThrownBy(() -> SqliteSessionStore.open(temp)).isInstanceOf(SessionStoreException.class)
                .hasMessageContaining(temp.resolve("sessions.db").toString());
    }
}
