package dev.bellows.cli;

import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.sessions.postgres.PostgresSessionStore;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * Where the CLI keeps sessions: {@code --session-store URL}, else {@code BELLOWS_SESSION_STORE},
 * else the config file's {@code "session_store"}: a PostgreSQL database
 * ({@code postgresql://...} or {@code jdbc:postgresql://...}, see {@link PostgresUrl}), shared by
 * whoever uses it; or {@code sqlite}, or nothing given: the SQLite database in the data
 * directory ({@link DataDirectory}).
 *
 * <p>Messages name the database by host, port and database name, never by the URL given: it
 * may hold the password.
 */
sealed interface SessionStoreLocation {

    /** The variable that names the store. */
    String ENV = "BELLOWS_SESSION_STORE";

    /** The config file's key. */
    String CONFIG_KEY = "session_store";

    /**
     * Where sessions are kept, from the flag, the variable, the config file, else the data directory.
     *
     * @throws UsageException for a value that is not a store, or a data directory that cannot be used
     */
    static SessionStoreLocation resolve(Host host, String flag, String dataDirFlag, ConfigFile file)
            throws UsageException {
        String value;
        String source;
        if (flag != null) {
            value = flag;
            source = "--session-store";
        } else if (host.envValue(ENV) != null) {
            value = host.envValue(ENV);
            source = ENV;
        } else if (file.string(CONFIG_KEY) != null) {
            value = file.string(CONFIG_KEY);
            source = file.source(CONFIG_KEY);
        } else {
            return new Sqlite(DataDirectory.resolve(host, dataDirFlag, file));
        }
        if (value.strip().equalsIgnoreCase("sqlite")) {
            return new Sqlite(DataDirectory.resolve(host, dataDirFlag, file));
        }
        if (value.isBlank()) {
            throw new UsageException(source + ": empty; give a PostgreSQL URL (postgresql://HOST[:PORT]/DATABASE)"
                    + " or sqlite");
        }
        return new Postgres(PostgresUrl.parse(value, source, host), source);
    }

    /** How messages name it: the data directory, or {@code postgresql://HOST:PORT/DATABASE}. */
    String display();

    /** Which setting chose it, for messages: {@code --data-dir}, {@code --session-store}, ... */
    String source();

    /** Whether anything can be stored there yet: reading a store that is not there creates nothing. */
    boolean mayHoldSessions();

    /**
     * Opens the store (creating or migrating its tables).
     *
     * @throws SessionStoreException with a message that says what to check, naming the host and
     *                               port of a database it cannot reach, and holding no password
     */
    SessionStore open();

    /**
     * The message of a store's failure, fit for the user: for PostgreSQL, what went wrong in
     * words (the server cannot be reached, the login or the database was refused) with where.
     */
    String explain(SessionStoreException failure);

    /** The SQLite database {@code sessions.db} in the data directory. */
    record Sqlite(Path directory) implements SessionStoreLocation {

        @Override
        public String display() {
            return directory.toString();
        }

        @Override
        public String source() {
            return "--data-dir";
        }

        @Override
        public boolean mayHoldSessions() {
            return Files.exists(directory.resolve("sessions.db"));
        }

        @Override
        public SessionStore open() {
            return SqliteSessionStore.open(directory);
        }

        @Override
        public String explain(SessionStoreException failure) {
            return failure.getMessage();
        }
    }

    /** A PostgreSQL database, one connection per operation (a CLI run makes few). */
    record Postgres(PostgresUrl url, String source) implements SessionStoreLocation {

        @Override
        public String display() {
            return url.display();
        }

        @Override
        public boolean mayHoldSessions() {
            return true;
        }

        @Override
        public SessionStore open() {
            try {
                return PostgresSessionStore.open(url.jdbcUrl(), url.user(), url.password());
            } catch (SessionStoreException e) {
                throw new SessionStoreException(explain(e), e);
            } catch (IllegalArgumentException e) {   // the driver refused a parameter of the URL
                throw new SessionStoreException(url.redact("the PostgreSQL URL cannot be used: " + e.getMessage()), e);
            }
        }

        @Override
        public String explain(SessionStoreException failure) {
            String where = "PostgreSQL at " + url.hostAndPort();
            SQLException sql = cause(failure, SQLException.class);
            Throwable network = network(failure);
            String state = sql == null || sql.getSQLState() == null ? "" : sql.getSQLState();
            String detail = sql == null ? failure.getMessage() : BellowsCommand.oneLine(sql.getMessage());
            String message;
            if (network instanceof UnknownHostException) {
                message = "cannot connect to " + where + ": unknown host " + url.host();
            } else if (network instanceof ConnectException || network instanceof NoRouteToHostException) {
                message = "cannot connect to " + where + ": " + (network instanceof ConnectException
                        ? "connection refused (is the server running, and listening there?)" : "no route to the host");
            } else if (network instanceof SocketTimeoutException) {
                message = "cannot connect to " + where + ": no answer in time";
            } else if (state.startsWith("08") && !state.equals("08004")) {
                message = "cannot connect to " + where + ": " + detail;
            } else if (state.startsWith("28") || state.equals("08004")) {   // 08004: no password for the server's method
                message = where + " refused the login" + (url.user() == null ? "" : " of user " + url.user()) + ": "
                        + detail + " (the password comes from the URL, else PGPASSWORD, else ~/.pgpass)";
            } else if (state.equals("3D000")) {
                message = where + " has no database \"" + url.database() + "\": create it (createdb), or name another";
            } else {
                message = failure.getMessage().startsWith("cannot ") ? failure.getMessage()
                        : where + ", database \"" + url.database() + "\": " + failure.getMessage();
            }
            return url.redact(message);
        }

        private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (type.isInstance(t)) {
                    return type.cast(t);
                }
            }
            return null;
        }

        private static Throwable network(Throwable failure) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof UnknownHostException || t instanceof ConnectException
                        || t instanceof NoRouteToHostException || t instanceof SocketTimeoutException) {
                    return t;
                }
            }
            return null;
        }

        @Override
        public String toString() { // no password, ever
            return "Postgres[" + url.display() + "]";
        }
    }
}
