package dev.bellows.sessions.postgres;

import dev.bellows.memory.SessionStore;
import dev.bellows.testkit.sessions.SessionStoreContract;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared session store contract on a real PostgreSQL server, each test in a fresh schema.
 * The stores of this JVM are opened on pools ({@link TestPools}, one per store); the crash
 * test's child JVMs open theirs on the JDBC URL (a connection per operation).
 */
class PostgresSessionStoreTest extends SessionStoreContract {

    private String url;

    @BeforeEach
    void newSchema() {
        TestPools.closeAll();       // the previous test's, its stores and sessions closed by now
        url = EmbeddedPostgres.shared().newSchema();
    }

    @AfterAll
    static void closePools() {
        TestPools.closeAll();
    }

    @Override
    protected SessionStore newStore() {
        return PostgresSessionStore.open(TestPools.pool(url, 4));
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
