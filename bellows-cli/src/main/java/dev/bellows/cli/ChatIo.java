package dev.bellows.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.jline.keymap.KeyMap;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.DefaultParser;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.NonBlockingReader;

/**
 * Where {@code bellows chat} reads the user's lines and writes what it shows: a JLine terminal
 * (line editing, history, multi-line input, paste, ANSI) or plain streams (a script on
 * standard input, a dumb terminal), chosen by {@link #open} as shells and REPLs choose:
 *
 * <ul>
 * <li>standard input not a terminal (a pipe, a file, a here-document): a script, as bash,
 *     sqlite3, psql and python read one: no prompt, each line one message, answers on
 *     standard output, progress on standard error, where each message is echoed after
 *     {@code > } so that a log or a watching user sees which answer is whose;</li>
 * <li>a person typing, output to the terminal: JLine on standard output;</li>
 * <li>a person typing, standard output piped ({@code bellows chat | tee log}): JLine on
 *     standard error, as bash and python prompt and edit there, answers (plain text) on
 *     standard output;</li>
 * <li>a person typing on a dumb terminal ({@code TERM=dumb} or unset): plain lines with the
 *     prompt {@code > } on standard error.</li>
 * </ul>
 *
 * {@code NO_COLOR} (set and not empty, as no-color.org says) takes away colours only: the
 * line editor and the live plan stay.
 */
interface ChatIo extends AutoCloseable {

    /** What reading a line gave. */
    sealed interface Input {
    }

    /** A line (several, for multi-line input) the user entered. */
    record Line(String text) implements Input {
    }

    /** Ctrl-C at the prompt; {@code empty} when nothing had been typed. */
    record Interrupt(boolean empty) implements Input {
    }

    /** The end of input (Ctrl-D, the end of a script). */
    record End() implements Input {
    }

    /** The next message: a line (or several joined), a Ctrl-C at the prompt, or the end. */
    Input read(String prompt);

    /**
     * One line asked for while a turn runs (an MCP server's question): Ctrl-C gives
     * {@link Interrupt}, the end of input {@link End}. As {@link #read} unless a terminal's
     * turn is watching the keys.
     */
    default Input readDuringTurn(String prompt) {
        return read(prompt);
    }

    /** Where answers go. */
    PrintWriter out();

    /** Where progress (thinking, tool calls) goes. */
    PrintWriter progress();

    /** Whether ANSI escapes that move the cursor may be written where progress goes. */
    boolean ansi();

    /** Whether colours and bold may be written where progress and the prompt go. */
    boolean color();

    /** Whether answers may be styled (bold, colour): they go to a terminal and colour is wanted. */
    boolean colorAnswers();

    /** Whether the messages come from a script (standard input not a terminal), not a person. */
    boolean script();

    /** The terminal's width in columns; 0 when unknown (no folding). */
    int width();

    /** The terminal's height in rows; 0 when unknown. */
    int height();

    /** The width to lay answers out for: the terminal's when they go to it, else 0 (no wrapping). */
    int answersWidth();

    /** Runs {@code action} on Ctrl-C until the handle is closed (while a turn runs). */
    AutoCloseable onInterrupt(Runnable action);

    /**
     * Runs {@code action} when the terminal is resized until the handle is closed (while a
     * turn runs; the line editor redraws its own prompt); {@link #width()} and
     * {@link #height()} give the new size.
     */
    AutoCloseable onResize(Runnable action);

    @Override
    void close();

    /**
     * A JLine terminal when the process has one (and this is the real process's input), else
     * plain streams; the history file (terminal only) is {@code history}.
     */
    static ChatIo open(BellowsCommand root, Path history) {
        if (root.stdin != System.in) {
            return new PlainIo(root, false); // input handed over by a caller: a script
        }
        boolean console = Host.interactiveConsole(); // standard input and output both terminals
        if (!console && !isTerminal(0)) {
            return new PlainIo(root, false);
        }
        String term = root.host.envValue("TERM");
        boolean color = root.host.envValue("NO_COLOR") == null;
        boolean outTerminal = console;
        if (term == null || term.equals("dumb") || (!outTerminal && !isTerminal(2))) {
            return new PlainIo(root, true);
        }
        return new TerminalIo(history, outTerminal ? null : root, color);
    }

    /**
     * Whether the process's file descriptor {@code fd} (0 input, 2 error) is a terminal, as
     * {@code test -t} says (Java itself can only tell whether input and output both are).
     */
    private static boolean isTerminal(int fd) {
        try {
            Process test = new ProcessBuilder("test", "-t", Integer.toString(fd)).inheritIO().start();
            return test.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Standard input line by line; answers on standard output, progress on standard error. A
     * person typing on a dumb terminal gets the prompt (on standard error, as bash and python
     * write theirs, so that standard output holds answers alone); a script does not, and each
     * of its messages is echoed on standard error after {@code > } instead.
     */
    final class PlainIo implements ChatIo {
        private final BellowsCommand root;
        private final boolean prompting;
        private final BufferedReader in;
        private final PrintWriter out;

        PlainIo(BellowsCommand root, boolean prompting) {
            this.root = root;
            this.prompting = prompting;
            this.in = new BufferedReader(new InputStreamReader(root.stdin, StandardCharsets.UTF_8));
            this.out = new PrintWriter(new OutputStreamWriter(root.stdout, StandardCharsets.UTF_8), true);
        }

        @Override
        public Input read(String prompt) {
            if (!prompting) {
                Input input = readLines();
                if (input instanceof Line line && !line.text().isBlank()) {
                    out.flush();
                    root.stderr.println(prompt + line.text().strip().replace("\n", "\n... "));
                    root.stderr.flush();
                }
                return input;
            }
            out.flush();
            root.stderr.print(prompt);
            root.stderr.flush();
            // As on a full terminal, a first Ctrl-C at the prompt says how to leave; the second
            // one leaves (the interrupt handler exits with 130 then). The terminal drops the line.
            try (AutoCloseable atPrompt = root.host.interrupts().onInterrupt(() -> {
                root.stderr.println();
                root.stderr.println("(Ctrl-C again, /exit or Ctrl-D to leave)");
                root.stderr.print(prompt);
                root.stderr.flush();
            })) {
                return readLines();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) { // closing the handler
                throw new IllegalStateException(e);
            }
        }

        private Input readLines() {
            try {
                StringBuilder text = new StringBuilder();
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.endsWith("\\")) { // a trailing backslash continues on the next line
                        text.append(line, 0, line.length() - 1).append('\n');
                        continue;
                    }
                    return new Line(text.append(line).toString());
                }
                if (text.isEmpty()) {
                    if (prompting) {
                        root.stderr.println(); // Ctrl-D left the cursor after the prompt
                        root.stderr.flush();
                    }
                    return new End();
                }
                return new Line(text.toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public PrintWriter out() {
            return out;
        }

        @Override
        public PrintWriter progress() {
            return root.stderr;
        }

        @Override
        public boolean ansi() {
            return false;
        }

        @Override
        public boolean color() {
            return false;
        }

        @Override
        public boolean colorAnswers() {
            return false;
        }

        @Override
        public boolean script() {
            return !prompting;
        }

        @Override
        public int width() {
            return 0;
        }

        @Override
        public int height() {
            return 0;
        }

        @Override
        public int answersWidth() {
            return 0;
        }

        @Override
        public AutoCloseable onInterrupt(Runnable action) {
            return root.host.interrupts().onInterrupt(action);
        }

        @Override
        public AutoCloseable onResize(Runnable action) {
            return () -> { }; // no cursor moves here, so nothing to lay out again
        }

        @Override
        public void close() {
            out.flush();
        }
    }

    /**
     * JLine: editing, history in the data directory, Alt-Enter or a trailing backslash for a
     * new line. On standard output, or on standard error when standard output is piped (the
     * answers go there then, unstyled).
     */
    final class TerminalIo implements ChatIo {
        private final Terminal terminal;
        private final LineReader reader;
        private final boolean color;
        /** Where answers go when standard output is not the terminal; null when it is. */
        private final PrintWriter answers;
        /** What the user typed while a turn ran: the next prompt starts with it. */
        private final StringBuilder typeahead = new StringBuilder();
        /** Guards the pause of a turn's key watcher while a question is asked. */
        private final Object keysLock = new Object();
        private boolean pauseKeys;
        private boolean keysParked;
        private volatile boolean watchingKeys;

        /**
         * @param piped the command whose standard output takes the answers, when it is not a
         *              terminal (JLine then uses standard error); null when it is one
         */
        TerminalIo(Path history, BellowsCommand piped, boolean color) {
            this.color = color;
            this.answers = piped == null ? null
                    : new PrintWriter(new OutputStreamWriter(piped.stdout, StandardCharsets.UTF_8), true);
            try {
                terminal = TerminalBuilder.builder().system(true)
                        .systemOutput(piped == null ? TerminalBuilder.SystemOutput.SysOut
                                : TerminalBuilder.SystemOutput.SysErr)
                        .build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            DefaultParser parser = new DefaultParser();
            parser.setEofOnEscapedNewLine(true); // "line\" asks for the next line
            parser.setEofOnUnclosedQuote(false); // "don't" is not an open quote
            parser.setEofOnUnclosedBracket();
            reader = LineReaderBuilder.builder()
                    .terminal(terminal)
                    .appName("bellows")
                    .parser(parser)
                    .variable(LineReader.HISTORY_FILE, history)
                    .variable(LineReader.SECONDARY_PROMPT_PATTERN, "... ")
                    .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true) // "!" is text, not history
                    .build();
            reader.getWidgets().put("bellows-newline", () -> {
                reader.getBuffer().write('\n');
                return true;
            });
            reader.getKeyMaps().get(LineReader.MAIN).bind(new org.jline.reader.Reference("bellows-newline"),
                    KeyMap.alt('\r'));
            // Ctrl-C is read as a key (the terminal's signal keys are off, see read): a SIGINT
            // from the terminal would also reach the MCP servers the chat started, and stop them
            reader.getWidgets().put("bellows-interrupt", () -> {
                throw new UserInterruptException(reader.getBuffer().toString());
            });
            reader.getKeyMaps().get(LineReader.MAIN).bind(new org.jline.reader.Reference("bellows-interrupt"),
                    KeyMap.ctrl('C'));
        }

        @Override
        public Input read(String prompt) {
            try {
                String typed;
                synchronized (typeahead) {
                    typed = typeahead.toString();
                    typeahead.setLength(0);
                }
                Attributes saved = withoutInterruptKey();
                try {
                    String line = reader.readLine(prompt, null, typed.isEmpty() ? null : typed);
                    return new Line(line.replace("\\\n", "\n"));
                } finally {
                    terminal.setAttributes(saved);
                }
            } catch (UserInterruptException e) {
                return new Interrupt(e.getPartialLine() == null || e.getPartialLine().isBlank());
            } catch (EndOfFileException e) {
                return new End();
            }
        }

        /**
         * Turns the terminal's signal keys off while a turn runs (Ctrl-C, Ctrl-\\ and Ctrl-Z
         * send no signal to the foreground process group); the attributes before, to restore.
         */
        private Attributes withoutSignalKeys() {
            Attributes before = terminal.getAttributes();
            Attributes changed = new Attributes(before);
            changed.setLocalFlag(Attributes.LocalFlag.ISIG, false);
            terminal.setAttributes(changed);
            return before;
        }

        /**
         * Turns the terminal's interrupt key off, the others kept (Ctrl-Z still suspends the
         * chat at its prompt): Ctrl-C comes as a key, which the line editor turns into an
         * interrupt; the attributes before, to restore.
         */
        private Attributes withoutInterruptKey() {
            Attributes before = terminal.getAttributes();
            Attributes changed = new Attributes(before);
            // _POSIX_VDISABLE: 0 on Linux, 0xff on the BSDs and macOS
            changed.setControlChar(Attributes.ControlChar.VINTR,
                    System.getProperty("os.name", "").startsWith("Linux") ? 0 : 0xff);
            terminal.setAttributes(changed);
            return before;
        }

        @Override
        public PrintWriter out() {
            return answers == null ? terminal.writer() : answers;
        }

        @Override
        public PrintWriter progress() {
            return terminal.writer();
        }

        @Override
        public boolean ansi() {
            return true;
        }

        @Override
        public boolean color() {
            return color;
        }

        @Override
        public boolean colorAnswers() {
            return color && answers == null;
        }

        @Override
        public boolean script() {
            return false;
        }

        @Override
        public int width() {
            return terminal.getWidth();
        }

        @Override
        public int height() {
            return terminal.getHeight();
        }

        @Override
        public int answersWidth() {
            return answers == null ? terminal.getWidth() : 0;
        }

        /**
         * While a turn runs the terminal is in raw mode with its signal keys off, and Ctrl-C is
         * read as a key here: a SIGINT from the terminal would reach the whole foreground
         * process group, MCP servers started by the chat included (they would die mid-call),
         * and keys echoed by the terminal would land inside the live plan block. Other keys
         * typed meanwhile are kept, escape sequences left out, and start the next prompt's line.
         * A SIGINT from elsewhere ({@code kill -INT}) still runs {@code action}.
         */
        @Override
        public AutoCloseable onInterrupt(Runnable action) {
            Terminal.SignalHandler previous = terminal.handle(Terminal.Signal.INT, signal -> action.run());
            Attributes saved = terminal.enterRawMode();
            withoutSignalKeys();
            java.util.concurrent.atomic.AtomicBoolean watching = new java.util.concurrent.atomic.AtomicBoolean(true);
            watchingKeys = true;
            Thread keys = Thread.ofPlatform().daemon().name("bellows-chat-keys").start(() -> {
                NonBlockingReader in = terminal.reader();
                boolean escape = false;
                try {
                    while (watching.get()) {
                        if (parkWhilePaused(watching)) {
                            continue;
                        }
                        int c = in.read(50);
                        if (c == 3) {
                            action.run();
                        } else if (c == 27) {
                            escape = true; // an arrow or function key: ESC [ ... letter, dropped
                        } else if (escape) {
                            escape = c == '[' || c == 'O' || (c >= '0' && c <= '?');
                        } else if (c >= ' ' && c != 127) {
                            synchronized (typeahead) {
                                typeahead.append((char) c);
                            }
                        } else if (c == '\r' || c == '\n') {
                            synchronized (typeahead) { // a line typed or pasted: the next one after a space
                                if (!typeahead.isEmpty() && typeahead.charAt(typeahead.length() - 1) != ' ') {
                                    typeahead.append(' ');
                                }
                            }
                        }
                    }
                } catch (IOException e) {
                    // the terminal is gone: the turn ends on its own
                } catch (InterruptedException e) {
                    // the turn is over
                }
            });
            return () -> {
                watchingKeys = false;
                watching.set(false);
                synchronized (keysLock) {
                    keysLock.notifyAll();
                }
                keys.join();
                terminal.setAttributes(saved);
                terminal.handle(Terminal.Signal.INT, previous);
            };
        }

        /** The key watcher's side of a pause: parks while a question reads the keys; true when it did. */
        private boolean parkWhilePaused(java.util.concurrent.atomic.AtomicBoolean watching) throws InterruptedException {
            synchronized (keysLock) {
                if (!pauseKeys) {
                    return false;
                }
                keysParked = true;
                keysLock.notifyAll();
                while (pauseKeys && watching.get()) {
                    keysLock.wait(100);
                }
                keysParked = false;
                return true;
            }
        }

        /**
         * While a turn watches the keys (raw mode, no signal keys), a question reads its line
         * here, the watcher parked: printable keys are echoed, Backspace erases, Enter ends,
         * Ctrl-C interrupts, Ctrl-D on an empty line ends the input; escape sequences are dropped.
         */
        @Override
        public Input readDuringTurn(String prompt) {
            if (!watchingKeys) {
                return read(prompt);
            }
            try {
                synchronized (keysLock) {
                    pauseKeys = true;
                    while (!keysParked && watchingKeys) {
                        keysLock.wait(100); // the watcher parks within one read of 50 ms
                    }
                }
                return rawLine(prompt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Interrupt(true);
            } catch (IOException e) {
                return new End();
            } finally {
                synchronized (keysLock) {
                    pauseKeys = false;
                    keysLock.notifyAll();
                }
            }
        }

        private Input rawLine(String prompt) throws IOException {
            PrintWriter out = terminal.writer();
            out.print(prompt);
            out.flush();
            NonBlockingReader in = terminal.reader();
            StringBuilder line = new StringBuilder();
            boolean escape = false;
            while (true) {
                int c = in.read(100);
                if (c == NonBlockingReader.READ_EXPIRED) {
                    continue;
                }
                if (c < 0) {
                    out.print("\r\n");
                    out.flush();
                    return new End();
                }
                if (c == 3) {
                    out.print("\r\n");
                    out.flush();
                    return new Interrupt(line.isEmpty());
                }
                if (c == 4 && line.isEmpty()) {
                    out.print("\r\n");
                    out.flush();
                    return new End();
                }
                if (c == '\r' || c == '\n') {
                    out.print("\r\n");
                    out.flush();
                    return new Line(line.toString());
                }
                if (c == 27) {
                    escape = true;
                } else if (escape) {
                    escape = c == '[' || c == 'O' || (c >= '0' && c <= '?');
                } else if (c == 127 || c == 8) {
                    if (!line.isEmpty()) {
                        line.setLength(line.length() - 1);
                        out.print("\b \b");
                    }
                } else if (c >= ' ') {
                    line.append((char) c);
                    out.print((char) c);
                }
                out.flush();
            }
        }

        @Override
        public AutoCloseable onResize(Runnable action) {
            Terminal.SignalHandler previous = terminal.handle(Terminal.Signal.WINCH, signal -> action.run());
            return () -> terminal.handle(Terminal.Signal.WINCH, previous);
        }

        @Override
        public void close() {
            try {
                if (answers != null) {
                    answers.flush();
                }
                reader.getHistory().save();
                terminal.close();
            } catch (IOException e) {
                // the history is a convenience: losing its last lines is not worth an error
            }
        }
    }
}
