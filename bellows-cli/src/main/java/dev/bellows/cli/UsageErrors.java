package dev.bellows.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.MaxValuesExceededException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Usage errors in words that never repeat what was typed after a flag: flags carry secrets
 * ({@code --api-key}), and a mistyped flag can put a secret where a word was expected
 * ({@code bellows chat --api-key KEY}). A message names the command and the flag, says what
 * was expected, and leaves out the values of options that may carry secrets (keys, tokens,
 * headers, a store URL) and of arguments no option claims; a model name or a base URL is shown. Files are the one exception cli.md asks for: an
 * error about a file names it.
 *
 * <p>Messages are built from what went wrong, not from picocli's text (which quotes the
 * arguments); and whatever a command says goes through {@link #redact} as a last guard.
 */
final class UsageErrors {

    // What may be shown of something unknown: a word that looks like a command or flag name.
    // Lower case only: keys and tokens mix cases and digits, names of commands and flags do not.
    private static final Pattern COMMAND_WORD = Pattern.compile("[a-z][a-z-]{0,15}");
    private static final Pattern OPTION_NAME = Pattern.compile("--?[a-z][a-z0-9-]{0,31}");
    private static final String HIDDEN = "(value not shown)";

    /** For a file that is not text in UTF-8 (the JDK says only "Input length = 1"). */
    static final String NOT_UTF8 = "not UTF-8 text (it holds bytes that are not valid UTF-8; save it as UTF-8)";
    // Shorter values are left alone: they cannot be secrets, and "1" would otherwise vanish from "at least 1".
    private static final int SHORTEST_REDACTED = 4;

    private UsageErrors() {
    }

    /** The one line for a parse error, without the values given. */
    static String message(ParameterException ex, String[] args) {
        CommandLine failed = ex.getCommandLine();
        CommandSpec spec = failed.getCommandSpec();
        // Built here from names only:
        if (ex instanceof UnmatchedArgumentException unmatched) {
            return unmatched(spec, unmatched);
        }
        if (ex instanceof MaxValuesExceededException) {
            return "too many values" + (ex.getArgSpec() == null ? "" : " for " + name(ex.getArgSpec()));
        }
        if (ex.getArgSpec() != null && ex.getValue() != null) {
            return name(ex.getArgSpec()) + ": invalid value" + expected(ex.getArgSpec(), ex.getValue());
        }
        String text = ex.getMessage() == null ? "" : ex.getMessage();
        if (text.startsWith("Unknown subcommand '") && text.lastIndexOf('\'') > 19) {
            // 'bellows help hlep': picocli's help command names what it did not find.
            return unknownCommand(spec.root(), text.substring(20, text.lastIndexOf('\'')));
        }
        // Picocli's words for a missing or repeated flag name flags only; a command's own words
        // may quote what it was given: the guard takes any value out.
        return redact(ex.getMessage(), values(args, spec.root()));
    }

    private static String unmatched(CommandSpec spec, UnmatchedArgumentException ex) {
        List<String> unmatched = ex.getUnmatched();
        String first = unmatched.isEmpty() ? "" : unmatched.getFirst();
        if (first.startsWith("-")) {
            String name = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
            String suggestion = Suggestions.option(spec, name);
            return OPTION_NAME.matcher(name).matches()
                    ? "unknown option '" + name + "'" + suggestion
                    : "unknown option" + suggestion;
        }
        if (!spec.subcommands().isEmpty() && spec.positionalParameters().isEmpty()) {
            return unknownCommand(spec, first);
        }
        int count = unmatched.size();
        return count == 1 ? "one argument too many" : count + " arguments too many";
    }

    private static String unknownCommand(CommandSpec commands, String typed) {
        String suggestion = Suggestions.command(commands, typed);
        return COMMAND_WORD.matcher(typed).matches()
                ? "unknown command '" + typed + "'" + suggestion
                : "unknown command" + suggestion;
    }

    /** {@code --max-iterations} or {@code TASK}. */
    private static String name(ArgSpec arg) {
        if (arg instanceof OptionSpec option) {
            return option.longestName();
        }
        return arg.paramLabel();
    }

    private static String expected(ArgSpec arg, String value) {
        Class<?> type = arg.type();
        boolean integer = type == int.class || type == Integer.class;
        if (integer || type == long.class || type == Long.class) {
            // Digits that do not fit are a number all the same: say it is too large (without repeating it).
            return value.strip().matches("[+-]?\\d+")
                    ? " (too large: at most " + (integer ? Integer.MAX_VALUE : Long.MAX_VALUE) + ")"
                    : " (expected a whole number)";
        }
        if (type == double.class || type == Double.class) {
            return " (expected a number)";
        }
        if (type.isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object constant : type.getEnumConstants()) {
                names.add(constant.toString().toLowerCase(Locale.ROOT));
            }
            return " (expected " + String.join(", ", names) + ")";
        }
        return "";
    }

    /** The message with every value given on the command line taken out, but the names of files. */
    static String redact(String message, Collection<String> values) {
        String safe = dev.bellows.secret.Secrets.redact(message);
        for (String value : values) {
            if (value.length() >= SHORTEST_REDACTED && safe.contains(value)) {
                safe = safe.replace(value, HIDDEN);
            }
        }
        return safe;
    }

    /** As {@link #redact(String, Collection)}, with the values of the command line that was parsed. */
    static String redact(String message, CommandSpec spec) {
        ParseResult parsed = spec.root().commandLine().getParseResult();
        if (parsed == null) {
            return message;
        }
        return redact(message, values(parsed.originalArgs().toArray(String[]::new), spec.root()));
    }

    /**
     * Every argument that is not a flag name, a subcommand name or a file given to a file
     * option: what must not be shown. Values after {@code =} count too.
     */
    static List<String> values(String[] args, CommandSpec root) {
        List<String> values = new ArrayList<>();
        CommandSpec current = root;
        boolean nextIsFile = false;
        OptionSpec valueOf = null;     // the option whose value the next argument is
        for (String arg : args) {
            if (arg == null) {
                continue;
            }
            if (nextIsFile) {
                nextIsFile = false;
                continue;
            }
            if (valueOf != null) {
                if (!isChoice(valueOf, arg) && (secret(valueOf) || hasCredentials(arg))) {
                    values.add(arg);
                }
                valueOf = null;
                continue;
            }
            if (arg.startsWith("-") && !arg.equals("-")) {
                int equals = arg.indexOf('=');
                String name = equals < 0 ? arg : arg.substring(0, equals);
                OptionSpec option = current.findOption(name);
                boolean file = option != null && isFile(option);
                if (equals >= 0 && !file && !isChoice(option, arg.substring(equals + 1))
                        && (secret(option) || hasCredentials(arg.substring(equals + 1)))) {
                    values.add(arg.substring(equals + 1));
                } else if (equals < 0 && file) {
                    nextIsFile = true;
                } else if (equals < 0 && option != null && option.arity().min() > 0) {
                    valueOf = option;
                }
                if (option == null && equals < 0) {
                    values.add(arg); // not a flag this command knows: it may be a value that starts with '-'
                }
                continue;
            }
            CommandLine sub = current.subcommands().get(arg);
            if (sub != null) {
                current = sub.getCommandSpec();
                continue;
            }
            values.add(arg);
        }
        return values;
    }

    /**
     * Whether {@code value} is one of the fixed choices the option's label lists
     * ({@code tags|native}, {@code default|react}): a word of the program's own, never a
     * secret, so a message may use it ("the react agent writes...").
     */
    private static boolean isChoice(OptionSpec option, String value) {
        if (option == null || !option.paramLabel().contains("|")) {
            return false;
        }
        for (String choice : option.paramLabel().split("\\|")) {
            if (choice.equals(value)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether an option's value may be a secret (a key, a token, a header, a URL with a
     * password): only such values are kept out of messages. A model name or a base URL is
     * shown as typed: hiding every value garbled messages that happened to contain one
     * ("--model database" hid "database" in "database disk image is malformed").
     */
    private static boolean secret(OptionSpec option) {
        if (option == null) {
            return true;
        }
        String name = option.longestName().toLowerCase(Locale.ROOT);
        return name.contains("key") || name.contains("token") || name.contains("password") || name.contains("secret")
                || name.contains("header") || name.contains("auth") || name.equals("--session-store");
    }

    /** A URL with a user (and maybe a password) in it: {@code https://user:pass@host/}. */
    private static boolean hasCredentials(String value) {
        int scheme = value.indexOf("://");
        int at = value.indexOf('@');
        return scheme > 0 && at > scheme && value.indexOf('/', scheme + 3) < 0 | value.indexOf('/', scheme + 3) > at;
    }

    private static boolean isFile(OptionSpec option) {
        return Path.class.isAssignableFrom(option.type()) || java.io.File.class.isAssignableFrom(option.type())
                || "FILE".equals(option.paramLabel());
    }
}
