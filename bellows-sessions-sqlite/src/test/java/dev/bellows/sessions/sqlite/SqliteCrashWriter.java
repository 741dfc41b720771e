package dev.bellows.sessions.sqlite;

import dev.bellows.testkit.sessions.CrashWriter;
import java.nio.file.Path;

/** The crash test's child process: {@code SqliteCrashWriter DIRECTORY SESSION}. */
final class SqliteCrashWriter {

    private SqliteCrashWriter() {
    }

    public static void main(String[] args) {
        CrashWriter.run(SqliteSessionStore.open(Path.of(args[0])), args[1], System.out);
    }
}
