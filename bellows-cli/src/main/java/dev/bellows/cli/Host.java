package dev.bellows.cli;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * What a command reads from the process around it besides its arguments and standard
 * streams: the environment, the working directory, how Ctrl-C reaches it, and whether
 * standard error is a terminal. {@link #system()} in {@code main}; tests give their own, so
 * no test depends on the developer's environment or installs a signal handler.
 *
 * @param env              the environment variables
 * @param workingDirectory where relative paths ({@code --config}, {@code bellows.json}) are resolved
 * @param interrupts       how an interrupt (Ctrl-C) reaches a running command
 * @param terminal         whether standard error is an interactive terminal that understands
 *                         ANSI escapes (dim thinking, a spinner)
 */
record Host(Map<String, String> env, Path workingDirectory, Interrupts interrupts, boolean terminal) {

    Host {
        env = Map.copyOf(env);
        Objects.requireNonNull(workingDirectory, "workingDirectory");
        Objects.requireNonNull(interrupts, "interrupts");
    }

    /** The real process: its environment and directory, SIGINT, and a terminal check. */
    static Host system() {
        Map<String, String> env = System.getenv();
        return new Host(env, Path.of("").toAbsolutePath(), Interrupts.sigint(), isTerminal(env));
    }

    /**
     * A terminal when the JVM has an interactive console (stdin and stdout are a terminal;
     * Java cannot ask about stderr alone), {@code TERM} is set and not {@code dumb}, and
     * {@code NO_COLOR} is not set. On JDK 22 to 24 {@code System.console()} is not null even
     * when redirected, so {@code Console.isTerminal()} is asked too where it exists.
     */
    static boolean isTerminal(Map<String, String> env) {
        String term = env.get("TERM");
        if (term == null || term.isBlank() || term.equals("dumb") || env.containsKey("NO_COLOR")) {
            return false;
        }
        return interactiveConsole();
    }

    /**
     * Whether the JVM's standard input and output are a terminal, whatever it understands (a
     * dumb one included): someone is typing, so a prompt helps.
     */
    static boolean interactiveConsole() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            // Console.isTerminal() is JDK 22+; Bellows targets 21, so look it up.
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return true; // JDK 21: a non-null console is a terminal
        }
    }

    /** The variable's value, or null when it is unset or blank. */
    String envValue(String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? null : value;
    }
}
