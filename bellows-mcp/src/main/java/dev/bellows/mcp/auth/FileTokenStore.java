package dev.bellows.mcp.auth;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * {@link TokenStore#file}: one JSON document, {@code {"version": 1, "servers": {URL: {"client":
 * {...}, "tokens": {...}}}}}. Each update holds an OS lock on a {@code .lock} file beside it
 * (so two processes never lose each other's writes), writes the whole document to a new file
 * of mode 0600 and renames it over the old one: the file is never seen half written, and it
 * stays 0600 whatever happened to the old one. Neither the file nor the lock is ever opened
 * through a symbolic link: one planted in their place is an error naming the path.
 */
final class FileTokenStore implements TokenStore {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final int VERSION = 1;
    private static final FileAttribute<?> PRIVATE_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final FileAttribute<?> PRIVATE_DIRECTORY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private final Path file;
    private final Path lock;
    private final boolean posix;

    FileTokenStore(Path file) {
        this.file = file.toAbsolutePath();
        this.lock = this.file.resolveSibling(this.file.getFileName() + ".lock");
        this.posix = this.file.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    @Override
    public StoredCredentials read(URI server) {
        JsonNode entry = readAll().path("servers").path(TokenStore.key(server));
        return entry.isObject() ? credentials(entry) : StoredCredentials.NONE;
    }

    @Override
    public void update(URI server, UnaryOperator<StoredCredentials> change) {
        createDirectory(file.getParent());
        try (FileChannel channel = open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            ObjectNode root = readAll();
            ObjectNode servers = root.withObjectProperty("servers");
            String key = TokenStore.key(server);
            JsonNode entry = servers.path(key);
            StoredCredentials next = change.apply(entry.isObject() ? credentials(entry) : StoredCredentials.NONE);
            if (next == null || next.isEmpty()) {
                servers.remove(key);
            } else {
                servers.set(key, json(next));
            }
            root.put("version", VERSION);
            write(root);
        } catch (IOException e) {
            throw failure("cannot write", e);
        }
    }

    private ObjectNode readAll() {
        refuseLink(file);
        byte[] bytes;
        try (SeekableByteChannel channel = Files.newByteChannel(file, Set.of(StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS)); InputStream in = Channels.newInputStream(channel)) {
            bytes = in.readAllBytes();
        } catch (NoSuchFileException e) {
            return JSON.createObjectNode();
        } catch (IOException e) {
            throw failure("cannot read", e);
        }
        try {
            JsonNode root = JSON.readTree(bytes);
            if (root instanceof ObjectNode object) {
                return object;
            }
        } catch (JacksonException e) {
            // reported below, without quoting the content: it holds tokens
        }
        throw new OAuthException(file + " is not a valid token file (remove it and log in again)");
    }

    private void write(ObjectNode root) throws IOException {
        Path temp = file.resolveSibling("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                 OutputStream out = Channels.newOutputStream(channel)) {
                out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
                out.flush();
                channel.force(true);
            }
            refuseLink(file);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Opens (creating with mode 0600 when asked) without following a symbolic link. */
    private FileChannel open(Path path, OpenOption... options) throws IOException {
        refuseLink(path);
        List<OpenOption> all = new ArrayList<>(List.of(options));
        all.add(LinkOption.NOFOLLOW_LINKS);
        try {
            return posix ? FileChannel.open(path, Set.copyOf(all), PRIVATE_FILE) : FileChannel.open(path, Set.copyOf(all));
        } catch (FileSystemException e) {
            if (Files.isSymbolicLink(path)) {
                throw symbolicLink(path);
            }
            throw e;
        }
    }

    private static void refuseLink(Path path) {
        if (Files.isSymbolicLink(path)) {
            throw symbolicLink(path);
        }
    }

    private static OAuthException symbolicLink(Path path) {
        return new OAuthException(path + " is a symbolic link; Bellows keeps tokens only in a file of its own: remove the"
                + " link");
    }

    private void createDirectory(Path directory) {
        if (directory == null || Files.isDirectory(directory)) {
            return;
        }
        try {
            if (directory.getParent() != null) {
                Files.createDirectories(directory.getParent());
            }
            if (posix) {
                Files.createDirectory(directory, PRIVATE_DIRECTORY);
            } else {
                Files.createDirectory(directory);
            }
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(directory)) {
                throw new OAuthException("cannot create the data directory " + directory + ": a file is in its place");
            }
        } catch (IOException e) {
            throw failure("cannot create the data directory for", e);
        }
    }

    private OAuthException failure(String what, IOException e) {
        String reason = e instanceof NoSuchFileException ? "no such file or directory"
                : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new OAuthException(what + " " + file + ": " + reason, e, false);
    }

    private static StoredCredentials credentials(JsonNode entry) {
        StoredCredentials.Client client = null;
        JsonNode c = entry.path("client");
        if (c.isObject() && c.hasNonNull("client_id") && c.hasNonNull("issuer")) {
            client = new StoredCredentials.Client(c.get("issuer").asString(), c.get("client_id").asString(),
                    c.hasNonNull("client_secret") ? OAuthSecret.of(c.get("client_secret").asString()) : null,
                    c.hasNonNull("token_endpoint_auth_method") ? c.get("token_endpoint_auth_method").asString() : null,
                    c.path("redirect_port").asInt(0));
        }
        StoredCredentials.Tokens tokens = null;
        JsonNode t = entry.path("tokens");
        if (t.isObject() && t.hasNonNull("access_token") && t.hasNonNull("token_endpoint")) {
            List<String> scopes = new ArrayList<>();
            for (String scope : t.path("scope").asString("").split(" ")) {
                if (!scope.isBlank()) {
                    scopes.add(scope);
                }
            }
            tokens = new StoredCredentials.Tokens(t.path("issuer").asString(null), URI.create(t.get("token_endpoint").asString()),
                    t.path("resource").asString(null), OAuthSecret.of(t.get("access_token").asString()),
                    t.hasNonNull("refresh_token") ? OAuthSecret.of(t.get("refresh_token").asString()) : null,
                    t.hasNonNull("expires_at") ? Instant.ofEpochSecond(t.get("expires_at").asLong()) : null, scopes,
                    t.hasNonNull("obtained_at") ? Instant.ofEpochSecond(t.get("obtained_at").asLong()) : null);
        }
        return new StoredCredentials(client, tokens);
    }

    private static ObjectNode json(StoredCredentials credentials) {
        ObjectNode entry = JSON.createObjectNode();
        if (credentials.client() != null) {
            StoredCredentials.Client client = credentials.client();
            ObjectNode c = entry.putObject("client");
            c.put("issuer", client.issuer());
            c.put("client_id", client.clientId());
            if (client.clientSecret() != null) {
                c.put("client_secret", client.clientSecret().reveal());
            }
            if (client.authMethod() != null) {
                c.put("token_endpoint_auth_method", client.authMethod());
            }
            if (client.redirectPort() > 0) {
                c.put("redirect_port", client.redirectPort());
            }
        }
        if (credentials.tokens() != null) {
            StoredCredentials.Tokens tokens = credentials.tokens();
            ObjectNode t = entry.putObject("tokens");
            if (tokens.issuer() != null) {
                t.put("issuer", tokens.issuer());
            }
            t.put("token_endpoint", tokens.tokenEndpoint().toString());
            if (tokens.resource() != null) {
                t.put("resource", tokens.resource());
            }
            t.put("access_token", tokens.accessToken().reveal());
            if (tokens.refreshToken() != null) {
                t.put("refresh_token", tokens.refreshToken().reveal());
            }
            if (tokens.expiresAt() != null) {
                t.put("expires_at", tokens.expiresAt().getEpochSecond());
            }
            t.put("scope", String.join(" ", tokens.scopes()));
            if (tokens.obtainedAt() != null) {
                t.put("obtained_at", tokens.obtainedAt().getEpochSecond());
            }
        }
        return entry;
    }

    @Override
    public String toString() {
        return "FileTokenStore[" + file + "]";
    }

    /** For messages: where the tokens are. */
    Path path() {
        return file;
    }
}
