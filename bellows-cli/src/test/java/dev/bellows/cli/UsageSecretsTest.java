package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Flags carry secrets: no usage error, on any path of any command, shows a value given after
 * a flag. Each case runs a real command line with a secret where a value goes, or where a
 * mistyped flag leaves it, and reads both streams.
 */
class UsageSecretsTest {

    private static final String SECRET = "sk-proj-S3CR3T0000aaaaBBBBccccDDDD";

    static Stream<Arguments> commandLines() {
        List<Arguments> cases = new ArrayList<>();
        // unknown command
        cases.add(Arguments.of("unknown command", List.of("zebra", "--api-key", SECRET), "unknown command 'zebra'"));
        cases.add(Arguments.of("unknown command that is the secret", List.of(SECRET, "task"), "unknown command"));
        cases.add(Arguments.of("unknown command with =", List.of("zebra", "--api-key=" + SECRET), "unknown command 'zebra'"));
        // unknown option, in every command
        for (String command : List.of("run", "chat", "parse", "mock-server", "demo")) {
            List<String> required = command.equals("mock-server") ? List.of("--script", "s.json") : List.of();
            cases.add(Arguments.of(command + ": unknown option, value apart",
                    concat(List.of(command), required, List.of("--api-kee", SECRET, "task")),
                    command.equals("run") ? "unknown option '--api-kee'; did you mean '--api-key'?"
                            : "unknown option '--api-kee'"));
            cases.add(Arguments.of(command + ": unknown option with =",
                    concat(List.of(command), required, List.of("--api-kee=" + SECRET, "task")),
                    "unknown option '--api-kee'"));
            // Whatever picocli makes of it (an unknown flag, a missing TASK...), the secret is not shown.
            cases.add(Arguments.of(command + ": the secret as a flag",
                    concat(List.of(command), required, List.of("-" + SECRET)), ""));
        }
        cases.add(Arguments.of("root: unknown option", List.of("--api-key", SECRET), "unknown option '--api-key'"));
        // bad values
        cases.add(Arguments.of("run: not a number", List.of("run", "--max-iterations", SECRET, "task"),
                "--max-iterations: invalid value (expected a whole number)"));
        cases.add(Arguments.of("run: not a number with =", List.of("run", "--timeout-seconds=" + SECRET, "task"),
                "--timeout-seconds: invalid value (expected a whole number)"));
        cases.add(Arguments.of("run: unknown provider", List.of("run", "--provider", SECRET, "--api-key", SECRET,
                "task"), "--provider: unknown provider"));
        cases.add(Arguments.of("run: unknown output", List.of("run", "--model", "m", "--output", SECRET, "task"),
                "--output: unknown output"));
        cases.add(Arguments.of("run: unknown agent", List.of("run", "--model", "m", "--agent", SECRET, "task"),
                "--agent: unknown agent"));
        cases.add(Arguments.of("run: below the minimum", List.of("run", "--model", "m", "--api-key", SECRET,
                "--max-iterations", "0", "task"), "--max-iterations: must be at least 1"));
        cases.add(Arguments.of("mock-server: not a port", List.of("mock-server", "--script", "s.json", "--port", SECRET),
                "--port: invalid value (expected a whole number)"));
        cases.add(Arguments.of("run: a base URL that cannot be used, with a key in it",
                List.of("run", "--base-url", "ftp://user:" + SECRET + "@example.com/v1", "--model", "m", "task"),
                "--base-url"));
        cases.add(Arguments.of("run: a blank key next to a secret elsewhere",
                List.of("run", "--system", SECRET, "--api-key", " ", "--model", "m", "task"), "--api-key"));
        cases.add(Arguments.of("demo: unknown output", List.of("demo", "--output", SECRET), "--output: must be text or jsonl"));
        cases.add(Arguments.of("parse: bad tag name", List.of("parse", "--thinking-tags", SECRET + " x"),
                "--thinking-tags"));
        // --session-store: a PostgreSQL URL may hold the password
        String withPassword = "postgresql://ada:" + SECRET + "@127.0.0.1:1/db";
        cases.add(Arguments.of("run: a session store that is no URL", List.of("run", "--model", "m", "--session", "s",
                "--session-store", SECRET, "task"), "--session-store: not a PostgreSQL URL"));
        cases.add(Arguments.of("run: a session store without a session", List.of("run", "--model", "m",
                "--session-store", withPassword, "task"), "--session-store: only used with --session NAME"));
        cases.add(Arguments.of("run: a session store URL with a bad port", List.of("run", "--model", "m", "--session", "s",
                "--session-store", "postgresql://ada:" + SECRET + "@db.example.com:99999/db", "task"),
                "--session-store: the URL's port must be between 1 and 65535"));
        cases.add(Arguments.of("run: a bad escape in the URL's password", List.of("run", "--model", "m", "--session", "s",
                "--session-store=postgresql://ada:%zz" + SECRET + "@db.example.com/db", "task"),
                "--session-store: the password in the URL has a bad %-escape"));
        cases.add(Arguments.of("run: a session store that cannot be reached", List.of("run", "--model", "m",
                "--session", "s", "--session-store", withPassword, "task"),
                "--session-store: cannot connect to PostgreSQL at 127.0.0.1:1: connection refused"));
        cases.add(Arguments.of("chat: a session store that cannot be reached, password as a parameter",
                List.of("chat", "--model", "m", "--session", "s", "--session-store",
                        "jdbc:postgresql://127.0.0.1:1/db?user=ada&password=" + SECRET),
                "--session-store: cannot connect to PostgreSQL at 127.0.0.1:1"));
        cases.add(Arguments.of("sessions: a session store that is no URL", List.of("sessions", "--session-store", SECRET),
                "--session-store: not a PostgreSQL URL"));
        // missing parameters
        cases.add(Arguments.of("run: no task", List.of("run", "--api-key", SECRET), "TASK is empty"));
        cases.add(Arguments.of("run: the key as a call id", List.of("run", "--api-key", SECRET, "--model", "m",
                "--session", "s", "--data-dir", "data", "--approve-call", SECRET), "has no run waiting"));
        cases.add(Arguments.of("run: a call id that is no id", List.of("run", "--session", "s", "--deny-call",
                SECRET + " x"), "--deny-call: not a tool call id"));
        cases.add(Arguments.of("run: a flag without its value", List.of("run", "--api-key", SECRET, "--model"),
                "Missing required parameter for option '--model'"));
        cases.add(Arguments.of("mock-server: no script", List.of("mock-server", "--port", SECRET),
                "--port: invalid value"));
        cases.add(Arguments.of("run: the secret as an extra word for parse", List.of("parse", SECRET),
                "one argument too many"));
        return cases.stream();
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    @TempDir
    static java.nio.file.Path directory;

    @ParameterizedTest(name = "{0}")
    @MethodSource("commandLines")
    void noUsageErrorShowsTheSecret(String name, List<String> args, String expected) {
        Host host = new Host(Map.of(), directory, Interrupts.NONE, false);
        Cli.Run run = Cli.run(host, args.toArray(String[]::new));
        // A store that cannot be reached is a store fault (1), as bellows sessions says it; the rest usage (2).
        assertThat(run.status()).as("exit status").isEqualTo(expected.contains("cannot connect") ? 1 : 2);
        assertThat(run.out()).doesNotContain(SECRET).doesNotContain("S3CR3T");
        assertThat(run.err()).doesNotContain(SECRET).doesNotContain("S3CR3T").contains(expected)
                .hasLineCount(1);
    }
}
