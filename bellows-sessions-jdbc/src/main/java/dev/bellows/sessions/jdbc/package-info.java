/**
 * One session store over JDBC ({@link dev.bellows.sessions.jdbc.JdbcSessionStore}) for the
 * databases Bellows stores sessions in; what differs between them is a
 * {@link dev.bellows.sessions.jdbc.SqlDialect}: its SQL fragments, its transactions and locks,
 * and (in the dialect's own module) its schema. Users open the stores of bellows-sessions-sqlite
 * and bellows-sessions-postgres; this package is what those two are built on.
 */
package dev.bellows.sessions.jdbc;
