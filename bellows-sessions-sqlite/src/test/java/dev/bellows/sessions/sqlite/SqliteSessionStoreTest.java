package dev.bellows.sessions.sqlite;

import dev.bellows.memory.SessionStore;
import dev.bellows.testkit.sessions.SessionStoreContract;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** The shared session store contract, on a fresh SQLite database in a temporary directory. */
class SqliteSessionStoreTest extends SessionStoreContract {

    @TempDir
    Path directory;

    @Override
    protected SessionStore newStore() {
        return SqliteSessionStore.open(directory);
    }

    @Override
    protected boolean exclusiveSessions() {
        return true;
    }

    @Override
    protected List<String> crashWriterCommand(String sessionName) {
        return List.of(SqliteCrashWriter.class.getName(), directory.toString(), sessionName);
    }
}
