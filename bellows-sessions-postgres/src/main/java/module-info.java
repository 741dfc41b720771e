/** Sessions in PostgreSQL. */
module dev.bellows.sessions.postgres {
    requires transitive dev.bellows.core;
    requires transitive java.sql;
    requires dev.bellows.sessions.jdbc;
    // The driver's jar names its module (Automatic-Module-Name) but has no module-info.
    requires org.postgresql.jdbc;

    exports dev.bellows.sessions.postgres;
}
