/** Sessions in a SQLite file. */
module dev.bellows.sessions.sqlite {
    requires transitive dev.bellows.core;
    requires dev.bellows.sessions.jdbc;
    requires org.xerial.sqlitejdbc;

    exports dev.bellows.sessions.sqlite;
}
