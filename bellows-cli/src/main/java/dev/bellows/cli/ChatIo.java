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
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * Where {@code bellows chat} reads the user's lines and writes what it shows: a JLine terminal
 * (line editing, history, multi-line input, paste, ANSI) or plain streams (a script on
 * standard input, output piped), chosen by {@link #open}.
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

    /** Where answers go. */
    PrintWriter out();

    /** Where progress (thinking, tool calls) goes. */
    PrintWriter progress();

    /** Whether ANSI escapes may be written. */
    boolean ansi();

    /** The terminal's width in columns; 0 when unknown (no folding). */
    int width();

    /** The terminal's height in rows; 0 when unknown. */
    int height();

    /** Runs {@code action} on Ctrl-C until the handle is closed (while a turn runs). */
    AutoCloseable onInterrupt(Runnable action);

    @Override
    void close();

    /**
     * A JLine terminal when the process has one (and this is the real process's input), else
     * plain streams; the history file (terminal only) is {@code history}.
     */
    static ChatIo open(BellowsCommand root, Path history) {
        if (root.host.terminal() && root.stdin == System.in) {
            return new TerminalIo(history);
        }
        return new PlainIo(root, root.stdin == System.in && Host.interactiveConsole());
    }

    /**
     * Standard input line by line; answers on standard output, progress on standard error. A
     * person typing on a dumb terminal gets the prompt; a script does not.
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
                return readLines();
            }
            root.stderr.flush();
            out.print(prompt);
            out.flush();
            // As on a full terminal, a first Ctrl-C at the prompt says how to leave; the second
            // one leaves (the interrupt handler exits with 130 then). The terminal drops the line.
            try (AutoCloseable atPrompt = root.host.interrupts().onInterrupt(() -> {
                out.println();
                out.println("(Ctrl-C again, /exit or Ctrl-D to leave)");
                out.print(prompt);
                out.flush();
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
                        out.println(); // Ctrl-D left the cursor after the prompt
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
        public int width() {
            return 0;
        }

        @Override
        public int height() {
            return 0;
        }

        @Override
        public AutoCloseable onInterrupt(Runnable action) {
            return root.host.interrupts().onInterrupt(action);
        }

        @Override
        public void close() {
            out.flush();
        }
    }

    /** JLine: editing, history in the data directory, Alt-Enter or a trailing backslash for a new line. */
    final class TerminalIo implements ChatIo {
        private final Terminal terminal;
        private final LineReader reader;

        TerminalIo(Path history) {
            try {
                terminal = TerminalBuilder.builder().system(true).build();
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
        }

        @Override
        public Input read(String prompt) {
            try {
                String line = reader.readLine(prompt);
                return new Line(line.replace("\\\n", "\n"));
            } catch (UserInterruptException e) {
                return new Interrupt(e.getPartialLine() == null || e.getPartialLine().isBlank());
            } catch (EndOfFileException e) {
                return new End();
            }
        }

        @Override
        public PrintWriter out() {
            return terminal.writer();
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
        public int width() {
            return terminal.getWidth();
        }

        @Override
        public int height() {
            return terminal.getHeight();
        }

        @Override
        public AutoCloseable onInterrupt(Runnable action) {
            Terminal.SignalHandler previous = terminal.handle(Terminal.Signal.INT, signal -> action.run());
            return () -> terminal.handle(Terminal.Signal.INT, previous);
        }

        @Override
        public void close() {
            try {
                reader.getHistory().save();
                terminal.close();
            } catch (IOException e) {
                // the history is a convenience: losing its last lines is not worth an error
            }
        }
    }
}
