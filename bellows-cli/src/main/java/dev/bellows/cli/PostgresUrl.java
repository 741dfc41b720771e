package dev.bellows.cli;

import dev.bellows.secret.Secrets;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * A PostgreSQL database given as a URL, in either form users have: libpq's
 * {@code postgresql://[USER[:PASSWORD]@]HOST[:PORT][,HOST2...]/DATABASE[?PARAM=VALUE...]}
 * ({@code postgres://} too), as {@code psql} and most tools take it, or the JDBC driver's
 * {@code jdbc:postgresql://HOST[:PORT]/DATABASE[?user=...&password=...]}. The user and the
 * password are taken out of the URL: the password is never part of {@link #jdbcUrl()} nor of
 * {@link #display()}, and nothing here repeats the URL given (it may hold the password).
 *
 * <p>When the URL has no password, {@code PGPASSWORD} gives it (and, without either, the
 * driver reads {@code ~/.pgpass}); when it has no user, {@code PGUSER} does.
 *
 * @param hosts    the hosts as given, each {@code HOST[:PORT]}, comma-separated
 * @param host     the first host, for messages
 * @param port     the first host's port (5432 unless given), for messages
 * @param database the database name, possibly empty (the server's default: the user's name)
 * @param user     the user, or null for the driver's default
 * @param password the password, or null
 * @param params   the driver's connection parameters (libpq's names translated), in order
 */
record PostgresUrl(String hosts, String host, int port, String database, String user, String password,
                   Map<String, String> params) {

    static final int DEFAULT_PORT = 5432;

    private static final Pattern HOST = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._%-]+)(:[0-9]{1,5})?");

    /** libpq's parameter names that the JDBC driver spells otherwise. */
    private static final Map<String, String> LIBPQ_NAMES = Map.of(
            "connect_timeout", "connectTimeout",
            "application_name", "ApplicationName");

    PostgresUrl {
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));   // in order, as given
        Secrets.register(password); // from the URL or PGPASSWORD: never in an output of this process
    }

    /** Whether the value is meant as a PostgreSQL URL (then {@link #parse} says what is wrong with it). */
    static boolean looksLikeOne(String value) {
        String lower = value.strip().toLowerCase(Locale.ROOT);
        return lower.startsWith("postgresql:") || lower.startsWith("postgres:") || lower.startsWith("jdbc:postgresql:");
    }

    /**
     * Parses the URL.
     *
     * @param source where it came from, for messages: {@code --session-store}, a variable, a file's key
     * @throws UsageException naming the source and what is wrong, never repeating the value
     */
    static PostgresUrl parse(String value, String source, Host host) throws UsageException {
        String text = value.strip();
        String lower = text.toLowerCase(Locale.ROOT);
        boolean jdbc = lower.startsWith("jdbc:postgresql://");
        String rest;
        if (jdbc) {
            rest = text.substring("jdbc:postgresql://".length());
        } else if (lower.startsWith("postgresql://")) {
            rest = text.substring("postgresql://".length());
        } else if (lower.startsWith("postgres://")) {
            rest = text.substring("postgres://".length());
        } else {
            throw new UsageException(source + ": not a PostgreSQL URL: expected postgresql://[USER@]HOST[:PORT]/DATABASE"
                    + " or jdbc:postgresql://HOST[:PORT]/DATABASE (or sqlite, for the data directory)");
        }
        String query = "";
        int question = rest.indexOf('?');
        if (question >= 0) {
            query = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String database = slash < 0 ? "" : decode(rest.substring(slash + 1), source, "the database name");
        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), source, "the user name");
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1), source, "the password");
        }
        String hosts = authority.isEmpty() ? "localhost" : authority;
        String firstHost = null;
        int firstPort = DEFAULT_PORT;
        for (String entry : hosts.split(",", -1)) {
            var matcher = HOST.matcher(entry);
            if (!matcher.matches()) {
                throw new UsageException(source + ": the URL's host must be HOST or HOST:PORT"
                        + " (several separated by commas, an IPv6 address in [brackets])");
            }
            int port = matcher.group(2) == null ? DEFAULT_PORT : Integer.parseInt(matcher.group(2).substring(1));
            if (port < 1 || port > 65_535) {
                throw new UsageException(source + ": the URL's port must be between 1 and 65535");
            }
            if (firstHost == null) {
                firstHost = matcher.group(1);
                firstPort = port;
            }
        }
        if (database.contains("/")) {
            throw new UsageException(source + ": the URL's path must be the database name alone (/DATABASE)");
        }
        Map<String, String> params = new LinkedHashMap<>();
        if (!query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int equals = pair.indexOf('=');
                String name = decode(equals < 0 ? pair : pair.substring(0, equals), source, "a parameter name");
                String paramValue = equals < 0 ? "" : decode(pair.substring(equals + 1), source, "a parameter value");
                switch (name) {
                    case "user" -> user = paramValue;
                    case "password" -> password = paramValue;
                    case "dbname" -> database = paramValue;
                    default -> params.put(jdbc ? name : LIBPQ_NAMES.getOrDefault(name, name), paramValue);
                }
            }
        }
        if (user == null || user.isEmpty()) {
            user = host.envValue("PGUSER");
        }
        if (password == null || password.isEmpty()) {
            password = host.envValue("PGPASSWORD");
        }
        return new PostgresUrl(hosts, firstHost, firstPort, database, user, password, params);
    }

    private static String decode(String text, String source, String what) throws UsageException {
        try {
            // '+' stays a plus: in a URL's path and user info it is not a space
            return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new UsageException(source + ": " + what + " in the URL has a bad %-escape");
        }
    }

    /** The URL for the JDBC driver: no user, no password (they are given apart). */
    String jdbcUrl() {
        StringBuilder url = new StringBuilder("jdbc:postgresql://").append(hosts).append('/')
                .append(URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20"));
        if (!params.isEmpty()) {
            StringJoiner query = new StringJoiner("&", "?", "");
            params.forEach((name, value) -> query.add(URLEncoder.encode(name, StandardCharsets.UTF_8) + "="
                    + URLEncoder.encode(value, StandardCharsets.UTF_8)));
            url.append(query);
        }
        return url.toString();
    }

    /** How messages name the database: {@code postgresql://HOST:PORT/DATABASE}, no user, no password, no parameters. */
    String display() {
        return "postgresql://" + hosts + "/" + database;
    }

    /** {@code HOST:PORT} of the first host. */
    String hostAndPort() {
        return host + ":" + port;
    }

    /** The text with the password taken out, should a message of the driver's ever hold it. */
    String redact(String text) {
        if (text == null || password == null || password.isEmpty()) {
            return text;
        }
        return text.replace(password, "(password not shown)");
    }

    @Override
    public String toString() { // no password, ever
        return "PostgresUrl[" + display() + "]";
    }
}
