package dev.bellows.eval.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the runs' events for a report's page: a reference is a file relative to the report's
 * folder, the whole file ({@code events/CASE/run-1.jsonl}, as earlier versions wrote them) or a
 * block of its lines ({@code events.jsonl#L85-L167}, from 1, both included). A report lists its
 * runs in the order their blocks have in the file, so one reader goes through the file once,
 * forward, for the whole page; a block before the reader's place opens the file again. Only
 * files inside the report's folder are read, links followed. Not thread-safe: one page's.
 */
final class EventSource implements AutoCloseable {

    /** The longest line number a reference's block gives (twelve digits). */
    private static final int MAX_DIGITS = 12;

    /** What a reference's lines are given to, with each line's number in its file. */
    interface LineSink {
        void line(String line, long number);
    }

    /** Why a reference could not be read, for the transcript to say. */
    static final class Unreadable extends Exception {
        Unreadable(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * A run's events as its transcript needs them: the file's name (as the reference gives it),
     * the number of the block's first line, the lines read (each ended by a line break), and why
     * the rest could not be read, or null.
     */
    record Block(String file, long from, String text, String problem) {
    }

    /** A reference to a block of a file's lines: the file, the first line and the last (from 1). */
    record Lines(String file, long from, long to) {

        /**
         * {@code reference} as a block ({@code FILE#Lfirst-Llast}, the numbers of 1 to 12 digits,
         * the file's name not empty and on one line), or null when it is not one: the whole file.
         * Read from the end, without a pattern: the page reads every run's reference.
         */
        static Lines of(String reference) {
            int end = reference.length();
            int toStart = digitsBefore(reference, end);
            if (toStart < 0 || !reference.startsWith("-L", toStart - 2)) {
                return null;
            }
            int fromStart = digitsBefore(reference, toStart - 2);
            if (fromStart < 3 || !reference.startsWith("#L", fromStart - 2)) {
                return null;
            }
            String file = reference.substring(0, fromStart - 2);
            for (int i = 0; i < file.length(); i++) {
                char c = file.charAt(i);
                if (c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                    return null;        // not "on one line", as the pattern the references were once read with had it
                }
            }
            return new Lines(file, Long.parseLong(reference, fromStart, toStart - 2, 10), Long.parseLong(reference, toStart, end, 10));
        }

        /** Where the 1 to 12 ASCII digits that end at {@code end} start, or -1. */
        private static int digitsBefore(String text, int end) {
            int start = end;
            while (start > 0 && end - start < MAX_DIGITS + 1 && text.charAt(start - 1) >= '0' && text.charAt(start - 1) <= '9') {
                start--;
            }
            return start == end || end - start > MAX_DIGITS ? -1 : start;
        }
    }

    private final Path base;
    private String openName;
    private BufferedReader reader;
    private long lineNumber;        // lines of the open file read so far

    EventSource(Path reportDir) {
        this.base = reportDir.toAbsolutePath().normalize();
    }

    /**
     * Gives {@code sink} the lines {@code reference} names.
     *
     * @return the file's name, as the reference gives it (for the transcript's notes)
     * @throws Unreadable when the file is outside the report's folder, missing or unreadable
     */
    String read(String reference, LineSink sink) throws Unreadable {
        Lines block = Lines.of(reference);
        String name = block != null ? block.file() : reference;
        long from = block != null ? block.from() : 1;
        long to = block != null ? block.to() : Long.MAX_VALUE;
        try {
            if (!name.equals(openName) || from <= lineNumber) {
                open(name);
            }
            while (lineNumber < to) {
                String line = reader.readLine();
                if (line == null) {
                    if (to != Long.MAX_VALUE) {
                        throw new Unreadable("events file " + name + " ends at line " + lineNumber + ", before " + to);
                    }
                    break;
                }
                lineNumber++;
                if (lineNumber >= from) {
                    sink.line(line, lineNumber);
                }
            }
            return name;
        } catch (NoSuchFileException e) {
            forget();
            throw new Unreadable("events file " + name + " not found");
        } catch (IOException e) {
            forget();
            throw new Unreadable("events file " + name + " could not be read: " + e.getMessage());
        }
    }

    /** The lines {@code reference} names, read now (as {@link #read} reads them), as one text. */
    Block block(String reference) {
        StringBuilder text = new StringBuilder(4096);
        long[] first = {-1};
        String problem = null;
        try {
            read(reference, (line, number) -> {
                if (first[0] < 0) {
                    first[0] = number;
                }
                text.append(line).append('\n');
            });
        } catch (Unreadable e) {
            problem = e.getMessage();
        }
        Lines block = Lines.of(reference);
        long from = first[0] >= 0 ? first[0] : block != null ? block.from() : 1;
        return new Block(block != null ? block.file() : reference, from, text.toString(), problem);
    }

    /**
     * {@code reference}, a block of a file's lines, from {@code text}, that block as the file
     * holds it (each line ended by a line break): what {@link #block} would read from the file.
     * Null when the reference is not a block or the text has not its lines (then the file is read).
     */
    static Block given(String reference, String text) {
        Lines block = reference == null || text == null ? null : Lines.of(reference);
        if (block == null || text.indexOf('\r') >= 0) {
            return null;        // a reader splits at a carriage return too: read from the file, as it would be
        }
        long from = block.from();
        long count = block.to() - from + 1;
        long breaks = 0;
        for (int at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
            breaks++;
        }
        return breaks == count && (text.isEmpty() || text.charAt(text.length() - 1) == '\n')
                ? new Block(block.file(), from, text, null) : null;
    }

    private void open(String name) throws IOException, Unreadable {
        forget();
        Path file = base.resolve(name).normalize();
        if (Path.of(name).isAbsolute() || !file.startsWith(base) || !inside(file)) {
            throw new Unreadable("events file " + name + " is outside the report's folder: not read");
        }
        reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        openName = name;
        lineNumber = 0;
    }

    /** Whether {@code file}, links followed, is still under the report's folder (a missing file is, for the not-found note). */
    private boolean inside(Path file) {
        try {
            return !Files.exists(file) || file.toRealPath().startsWith(base.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    private void forget() {
        if (reader != null) {
            try {
                reader.close();
            } catch (IOException e) {
                // only read from: nothing is lost
            }
        }
        reader = null;
        openName = null;
        lineNumber = 0;
    }

    @Override
    public void close() {
        forget();
    }
}
