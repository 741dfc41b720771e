package dev.bellows.sessions.postgres;

import dev.bellows.memory.SessionStore;
import dev.bellows.testkit.sessions.SessionStoreContract;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;

/** The shared session store contract, on a fresh database of a real PostgreSQL server. */
class PostgresSessionStoreTest extends SessionStoreContract {

    private String url;

    @BeforeEach
    void newDatabase() {
        url = EmbeddedPostgres.shared().newDatabase();
    }

    @Override
    protected SessionStore newStore() {
        return PostgresSessionStore.open(url, "postgres", null);
    }

    @Override
    protected boolean exclusiveSessions() {
        return false;
    }

    @Override
    protected List<String> crashWriterCommand(String sessionName) {
        return List.of(PostgresCrashWriter.class.getName(), url, sessionName);
    }
}
