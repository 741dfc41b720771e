package dev.bellows.sessions.postgres;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * A real PostgreSQL server for the tests, one per test JVM: the official binaries as zonky
 * packages them on Maven Central (a test dependency), unpacked once into the repository's
 * {@code .cache/postgres/VERSION}, a fresh data directory (a copy of a cluster initialized once
 * beside the binaries), the server on 127.0.0.1 and a free port. PostgreSQL refuses to run as root; when the tests run as root (CI containers) initdb
 * and the server run as the user {@code nobody} through {@code setpriv} (util-linux), and the
 * binaries are unpacked where that user can reach them. zonky's own Java launcher has no such
 * switch, which is why the tests start the binaries themselves. Public for the tests of other
 * modules (bellows-cli), which get it from this module's test jar.
 */
public final class EmbeddedPostgres {

    private static final String ARCHIVE = "postgres-linux-x86_64.txz";
    private static final int NOBODY = 65534;
    /** The database that holds {@link #newSchema()}'s schemas. */
    private static final String SCHEMAS_DATABASE = "bellows_test_schemas";

    private static EmbeddedPostgres shared;

    private volatile Process server;
    private final Path dataDirectory;
    private final int port;
    /** The command that started the server, to start it again after {@link #kill()}. */
    private final List<String> command;
    private final AtomicInteger databases = new AtomicInteger();
    private final AtomicInteger schemas = new AtomicInteger();
    /** Guarded by this: whether {@link #SCHEMAS_DATABASE} exists. */
    private boolean schemaDatabaseCreated;

    private EmbeddedPostgres(Process server, Path dataDirectory, int port, List<String> command) {
        this.server = server;
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.command = List.copyOf(command);
    }

    /**
     * A server of the caller's own, for a test that takes it away ({@link #kill()}) and brings it
     * back ({@link #restart()}): the shared one must stay up for the other tests. Stopped when
     * the JVM exits.
     */
    public static EmbeddedPostgres own() {
        try {
            EmbeddedPostgres server = start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "stop-own-test-postgres"));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a test PostgreSQL server: " + e.getMessage(), e);
        }
    }

    /**
     * Takes the server away at once, as a crash or a network cut would: PostgreSQL's "immediate"
     * shutdown (SIGQUIT), every connection dropped, nothing waited for. The data stays.
     */
    public synchronized void kill() throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-QUIT", Long.toString(server.pid())).start().waitFor();
        server.waitFor();
    }

    /** Starts the server again after {@link #kill()}, on the same data and port. */
    public synchronized void restart() throws IOException {
        Process again = new ProcessBuilder(command).redirectErrorStream(true).start();
        awaitReady(again);
        server = again;
    }

    /** The server of this test JVM, started on first use and stopped when the JVM exits. */
    public static synchronized EmbeddedPostgres shared() {
        if (shared == null) {
            try {
                shared = start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the test PostgreSQL server: " + e.getMessage(), e);
            }
            EmbeddedPostgres server = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "stop-test-postgres"));
        }
        return shared;
    }

    /**
     * A new, empty schema in one database that this server's tests share; a JDBC URL that works
     * in it alone ({@code currentSchema}: the schema is the connections' search path, so the
     * store's unqualified tables are created and found there). As isolated as
     * {@link #newDatabase()} for a test of the store, and much cheaper: PostgreSQL copies a
     * whole template (some thousand files, through the write-ahead log) for a database, and
     * the data directory is smaller to delete when the JVM exits.
     */
    public String newSchema() {
        String name = "bellows_test_" + schemas.incrementAndGet();
        try (Connection admin = DriverManager.getConnection(url(schemaDatabase()), "postgres", "");
             Statement statement = admin.createStatement()) {
            statement.execute("CREATE SCHEMA " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test schema " + name + ": " + e.getMessage(), e);
        }
        return url(SCHEMAS_DATABASE) + "?currentSchema=" + name;
    }

    /** The database of {@link #newSchema()}'s schemas, created on first use. */
    private synchronized String schemaDatabase() {
        if (!schemaDatabaseCreated) {
            try (Connection admin = DriverManager.getConnection(url("postgres"), "postgres", "");
                 Statement statement = admin.createStatement()) {
                statement.execute("CREATE DATABASE " + SCHEMAS_DATABASE);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create test database " + SCHEMAS_DATABASE + ": " + e.getMessage(), e);
            }
            schemaDatabaseCreated = true;
        }
        return SCHEMAS_DATABASE;
    }

    /** A new, empty database; its JDBC URL. */
    public String newDatabase() {
        String name = "bellows_test_" + databases.incrementAndGet();
        try (Connection admin = DriverManager.getConnection(url("postgres"), "postgres", "");
             Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name + ": " + e.getMessage(), e);
        }
        return url(name);
    }

    /** The port the server listens on, on 127.0.0.1. */
    public int port() {
        return port;
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    private static EmbeddedPostgres start() throws IOException {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path binaries = unpack(root);
        Path data = Files.createTempDirectory("bellows-pg-");
        if (root) {
            Files.setAttribute(data, "unix:uid", NOBODY);
            Files.setAttribute(data, "unix:gid", NOBODY);
        }
        Path cluster = data.resolve("cluster");
        run(asServerUser(root, List.of("cp", "-a", initializedCluster(root, binaries).toString(), cluster.toString())),
                "copying the initialized cluster");
        // The port is free when picked but only bound when the server starts: another process
        // may take it in between, so a server that cannot bind it is started again on another.
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            List<String> command = asServerUser(root, List.of(binaries.resolve("bin/postgres").toString(),
                    "-D", cluster.toString(), "-p", Integer.toString(port), "-h", "127.0.0.1",
                    "-k", data.toString(), "-c", "fsync=off", "-c", "max_connections=200"));
            Process server = new ProcessBuilder(command).redirectErrorStream(true).start();
            try {
                awaitReady(server);
                return new EmbeddedPostgres(server, data, port, command);
            } catch (IOException e) {
                if (attempt == 5 || !String.valueOf(e.getMessage()).contains("Address already in use")) {
                    throw e;
                }
                server.onExit().join();   // gone, with its postmaster.pid, before the next try
            }
        }
    }

    /**
     * A cluster as {@code initdb} leaves it, made once beside the binaries (in
     * {@code VERSION-initdb-KEY/cluster}, the key naming initdb's options) and copied for every
     * server: initdb bootstraps the catalogs in several processes, some seconds on a loaded
     * machine, where copying its result takes a fraction of one. Made in a directory of its
     * own and renamed into place, as the binaries are, so that JVMs starting together find it
     * whole or make their own.
     */
    private static Path initializedCluster(boolean root, Path binaries) throws IOException {
        List<String> options = List.of("-U", "postgres", "-A", "trust", "-E", "UTF-8", "--no-locale", "--no-sync");
        Path done = binaries.resolveSibling(binaries.getFileName() + "-initdb-"
                + Integer.toHexString(String.join(" ", options).hashCode()));
        if (Files.isDirectory(done)) {
            return done.resolve("cluster");
        }
        Path partial = done.resolveSibling(done.getFileName() + ".partial-" + ProcessHandle.current().pid());
        deleteTree(partial);
        Files.createDirectories(partial);
        if (root) {
            Files.setAttribute(partial, "unix:uid", NOBODY);
            Files.setAttribute(partial, "unix:gid", NOBODY);
        }
        List<String> initdb = new ArrayList<>(List.of(binaries.resolve("bin/initdb").toString(), "-D",
                partial.resolve("cluster").toString()));
        initdb.addAll(options);
        run(asServerUser(root, initdb), "initdb");
        try {
            Files.move(partial, done, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException raced) {
            // another test JVM made it first
            deleteTree(partial);
            if (!Files.isDirectory(done)) {
                throw raced;
            }
        }
        return done.resolve("cluster");
    }

    /** Reads the server's log until it accepts connections; fails with the log if it dies first. */
    private static void awaitReady(Process server) throws IOException {
        BufferedReader log = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = log.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.contains("database system is ready to accept connections")) {
                Thread drain = new Thread(() -> {
                    try {
                        while (log.readLine() != null) {
                            // keep the pipe empty so the server never blocks on its log
                        }
                    } catch (IOException ignored) {
                        // the server stopped
                    }
                }, "postgres-log");
                drain.setDaemon(true);
                drain.start();
                return;
            }
        }
        throw new IOException("the PostgreSQL server exited before it was ready:\n" + seen);
    }

    private static List<String> asServerUser(boolean root, List<String> command) {
        if (!root) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static void run(List<String> command, String what) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (process.waitFor() != 0) {
                throw new IOException(what + " failed (" + String.join(" ", command) + "):\n" + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " was interrupted", e);
        }
    }

    /**
     * Unpacks the binaries once into {@code .cache/postgres/VERSION} of the repository; as root,
     * into the temporary directory instead when {@code nobody} cannot reach the repository.
     */
    private static Path unpack(boolean root) throws IOException {
        String version = System.getProperty("postgres.binaries.version", "17.6.0");
        Path cache = repositoryRoot().resolve(".cache").resolve("postgres").resolve(version);
        Path target = cache;
        if (root && !reachableByNobody(cache)) {
            target = Path.of(System.getProperty("java.io.tmpdir")).resolve("bellows-postgres-" + version);
        }
        if (Files.exists(target.resolve(".complete"))) {
            return target;
        }
        Path partial = Files.createDirectories(target.getParent()).resolve(target.getFileName() + ".partial-" + ProcessHandle.current().pid());
        deleteTree(partial);
        Files.createDirectories(partial);
        try (InputStream archive = EmbeddedPostgres.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
            if (archive == null) {
                throw new IOException(ARCHIVE + " is not on the test class path: the PostgreSQL binaries are a test"
                        + " dependency for linux x86_64 only");
            }
            try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(archive))) {
                for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
                    Path path = partial.resolve(entry.getName()).normalize();
                    if (!path.startsWith(partial)) {
                        throw new IOException("archive entry outside its directory: " + entry.getName());
                    }
                    if (entry.isDirectory()) {
                        Files.createDirectories(path);
                    } else if (entry.isSymbolicLink()) {
                        Files.createDirectories(path.getParent());
                        Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                    } else {
                        Files.createDirectories(path.getParent());
                        Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                        Files.setPosixFilePermissions(path, permissions(entry.getMode()));
                    }
                }
            }
        }
        try (Stream<Path> paths = Files.walk(partial)) {
            for (Path path : paths.toList()) {
                if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
        }
        Files.writeString(partial.resolve(".complete"), version);
        try {
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException raced) {
            // another test JVM unpacked it first
            deleteTree(partial);
            if (!Files.exists(target.resolve(".complete"))) {
                throw raced;
            }
        }
        return target;
    }

    private static boolean reachableByNobody(Path directory) {
        for (Path dir = directory.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir)) {
                try {
                    if (!Files.getPosixFilePermissions(dir).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                        return false;
                    }
                } catch (IOException e) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        StringBuilder text = new StringBuilder();
        String letters = "rwxrwxrwx";
        for (int bit = 8; bit >= 0; bit--) {
            text.append((mode & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
        }
        // readable by all: the server may run as another user than the one who unpacked it
        Set<PosixFilePermission> permissions = PosixFilePermissions.fromString(text.toString());
        permissions.add(PosixFilePermission.OWNER_READ);
        permissions.add(PosixFilePermission.GROUP_READ);
        permissions.add(PosixFilePermission.OTHERS_READ);
        return permissions;
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw")) && Files.exists(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        return Path.of("").toAbsolutePath();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private void stop() {
        try {
            // SIGINT is PostgreSQL's "fast" shutdown; SIGTERM (destroy) would wait for every client
            new ProcessBuilder("kill", "-INT", Long.toString(server.pid())).start().waitFor();
            server.waitFor();
            deleteTree(dataDirectory);
        } catch (InterruptedException | IOException ignored) {
            // the JVM is exiting; a temporary directory left behind is harmless
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
