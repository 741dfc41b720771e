package dev.bellows.sessions.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work done inside one transaction, on the connection the dialect gives it.
 *
 * @param <T> what the work returns
 */
@FunctionalInterface
public interface SqlWork<T> {

    /** Runs the work; the dialect commits when it returns and rolls back when it throws. */
    T run(Connection connection) throws SQLException;
}
