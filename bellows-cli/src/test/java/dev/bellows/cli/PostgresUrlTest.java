package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The two URL forms a user may give for the session store, and where user and password come from. */
class PostgresUrlTest {

    private static final Host NO_ENV = new Host(Map.of(), Path.of("/tmp"), Interrupts.NONE, false);

    private static PostgresUrl parse(String url) throws UsageException {
        return PostgresUrl.parse(url, "--session-store", NO_ENV);
    }

    @Test
    void libpqFormWithUserPasswordAndParameters() throws UsageException {
        PostgresUrl url = parse("postgresql://ada:p%40ss%2Bw0rd@db.example.com:6543/team%20db"
                + "?sslmode=require&connect_timeout=5&application_name=bellows");
        assertThat(url.user()).isEqualTo("ada");
        assertThat(url.password()).isEqualTo("p@ss+w0rd");
        assertThat(url.database()).isEqualTo("team db");
        assertThat(url.hostAndPort()).isEqualTo("db.example.com:6543");
        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.com:6543/team%20db"
                + "?sslmode=require&connectTimeout=5&ApplicationName=bellows");
        assertThat(url.display()).isEqualTo("postgresql://db.example.com:6543/team db");
        assertThat(url.toString()).doesNotContain("p@ss");
    }

    @Test
    void jdbcFormWithUserAndPasswordAsParameters() throws UsageException {
        PostgresUrl url = parse("jdbc:postgresql://127.0.0.1/bellows?user=ada&password=secret1&sslmode=disable");
        assertThat(url.user()).isEqualTo("ada");
        assertThat(url.password()).isEqualTo("secret1");
        assertThat(url.port()).isEqualTo(5432);
        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1/bellows?sslmode=disable")
                .doesNotContain("secret1").doesNotContain("ada");
        assertThat(url.redact("login of ada with secret1 failed")).isEqualTo("login of ada with (password not shown) failed");
    }

    @Test
    void postgresSchemeSeveralHostsAndIpv6() throws UsageException {
        assertThat(parse("postgres://h1:5433,h2/db").hostAndPort()).isEqualTo("h1:5433");
        assertThat(parse("postgres://h1:5433,h2/db").jdbcUrl()).isEqualTo("jdbc:postgresql://h1:5433,h2/db");
        assertThat(parse("postgresql://[::1]:5444/db").hostAndPort()).isEqualTo("[::1]:5444");
        assertThat(parse("postgresql:///db").hostAndPort()).as("no host: localhost").isEqualTo("localhost:5432");
    }

    @Test
    void userAndPasswordFromTheEnvironmentWhenTheUrlHasNone() throws UsageException {
        Host env = new Host(Map.of("PGUSER", "env-user", "PGPASSWORD", "env-pass"), Path.of("/tmp"), Interrupts.NONE, false);
        PostgresUrl fromEnv = PostgresUrl.parse("postgresql://db/x", "X", env);
        assertThat(fromEnv.user()).isEqualTo("env-user");
        assertThat(fromEnv.password()).isEqualTo("env-pass");
        PostgresUrl fromUrl = PostgresUrl.parse("postgresql://ada:mine@db/x", "X", env);
        assertThat(fromUrl.user()).isEqualTo("ada");
        assertThat(fromUrl.password()).as("the URL's first").isEqualTo("mine");
        assertThat(parse("postgresql://db/x").password()).isNull();
    }

    @Test
    void whatIsNotAUrlIsSaidWithoutRepeatingIt() {
        assertThatThrownBy(() -> parse("mysql://u:hunter2@h/db")).isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--session-store: not a PostgreSQL URL").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> parse("postgresql://u:hunter2@h:0/db")).hasMessageContaining("port must be between")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> parse("postgresql://u:hunter2@bad host/db")).hasMessageContaining("HOST or HOST:PORT")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> parse("postgresql://h/db/extra")).hasMessageContaining("the database name alone");
    }
}
