/** The session store over JDBC; a database adds its SqlDialect (the SPI of this module). */
module dev.bellows.sessions.jdbc {
    requires transitive dev.bellows.core;
    requires transitive java.sql;

    exports dev.bellows.sessions.jdbc;
}
