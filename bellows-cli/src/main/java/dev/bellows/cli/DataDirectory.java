package dev.bellows.cli;

import dev.bellows.sessions.sqlite.SqliteSessionStore;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Where the CLI keeps sessions: {@code --data-dir DIR}, else {@code BELLOWS_DATA_DIR}, else the
 * config file's {@code "data_dir"}, else
 * {@code $XDG_DATA_HOME/bellows}, else {@code ~/.local/share/bellows}. A relative directory is
 * taken from the working directory.
 */
final class DataDirectory {

    static final String ENV = "BELLOWS_DATA_DIR";

    private DataDirectory() {
    }

    static Path resolve(Host host, String flag) throws UsageException {
        return resolve(host, flag, ConfigFile.none(host.workingDirectory()));
    }

    /** As {@link #resolve(Host, String)}, with the config file's {@code "data_dir"} (relative to the file) after the environment. */
    static Path resolve(Host host, String flag, ConfigFile file) throws UsageException {
        if (flag != null) {
            return path(host, flag, "--data-dir");
        }
        String fromEnv = host.envValue(ENV);
        if (fromEnv != null) {
            return path(host, fromEnv, ENV);
        }
        String fromFile = file.string("data_dir");
        if (fromFile != null) {
            if (fromFile.isBlank()) {
                throw new UsageException(file.source("data_dir") + ": empty directory name");
            }
            try {
                return file.directory.resolve(fromFile).toAbsolutePath().normalize();
            } catch (java.nio.file.InvalidPathException e) {
                throw new UsageException(file.source("data_dir") + ": not a valid path (" + e.getReason() + ")");
            }
        }
        String home = host.envValue("HOME");
        return SqliteSessionStore.defaultDirectory(host.envValue("XDG_DATA_HOME"),
                home != null ? Path.of(home) : Path.of(System.getProperty("user.home")));
    }

    private static Path path(Host host, String value, String source) throws UsageException {
        if (value.isBlank()) {
            throw new UsageException(source + ": empty directory name");
        }
        try {
            return host.workingDirectory().resolve(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new UsageException(source + " " + value + ": not a valid path (" + e.getReason() + ")");
        }
    }
}
