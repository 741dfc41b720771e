package dev.bellows.sessions.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Connection pools (HikariCP) for the tests' stores, as a user of
 * {@link PostgresSessionStore#open(javax.sql.DataSource)} would give: a store on a pool keeps its
 * connection, where a store opened on a URL connects (a new server process) for every operation,
 * which made the tests mostly wait for connections. Every pool is a store's own, so each store
 * still has connections of its own, as another process would. Pools are closed in
 * {@link #closeAll()}, after the test has closed its stores and sessions.
 */
final class TestPools {

    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final List<HikariDataSource> OPEN = new ArrayList<>();

    private TestPools() {
    }

    /** A new pool of up to {@code size} connections to that URL; its first connection is opened now. */
    static HikariDataSource pool(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setPoolName("test-pool-" + COUNT.incrementAndGet());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        HikariDataSource pool = new HikariDataSource(config);
        synchronized (OPEN) {
            OPEN.add(pool);
        }
        return pool;
    }

    /** Closes every pool made so far (and their connections). */
    static void closeAll() {
        synchronized (OPEN) {
            OPEN.forEach(HikariDataSource::close);
            OPEN.clear();
        }
    }
}
