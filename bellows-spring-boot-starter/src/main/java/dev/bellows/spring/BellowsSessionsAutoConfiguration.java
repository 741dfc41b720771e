package dev.bellows.spring;

import dev.bellows.memory.SessionStore;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import java.nio.file.Path;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link SessionStore} bean when {@code bellows-sessions-sqlite} is on the class path:
 * conversations stored in {@code sessions.db} under {@code bellows.sessions-directory}
 * (default: {@code $XDG_DATA_HOME/bellows}, else {@code ~/.local/share/bellows}, where
 * {@code bellows sessions} looks too).
 *
 * <p>Backs off when the application defines its own store, such as a
 * {@code PostgresSessionStore.open(dataSource)} bean. Spring closes the store at shutdown.
 */
@AutoConfiguration
@ConditionalOnClass(SqliteSessionStore.class)
@EnableConfigurationProperties(BellowsProperties.class)
public class BellowsSessionsAutoConfiguration {

    /** The SQLite store in the configured directory, created (readable by its owner only) if missing. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(SessionStore.class)
    public SessionStore bellowsSessionStore(BellowsProperties properties) {
        Path directory = properties.getSessionsDirectory();
        return SqliteSessionStore.open(directory != null ? directory : SqliteSessionStore.defaultDirectory());
    }
}
