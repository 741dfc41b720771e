package dev.bellows.sessions.postgres;

import dev.bellows.testkit.sessions.CrashWriter;

/** The crash test's child process: {@code PostgresCrashWriter JDBC_URL SESSION}. */
final class PostgresCrashWriter {

    private PostgresCrashWriter() {
    }

    public static void main(String[] args) {
        CrashWriter.run(PostgresSessionStore.open(args[0], "postgres", null), args[1], System.out);
    }
}
