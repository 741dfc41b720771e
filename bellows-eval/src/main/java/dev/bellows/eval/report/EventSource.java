package dev.bellows.eval.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the runs' events for a report's page: a reference is a file relative to the report's
 * folder, the whole file ({@code events/CASE/run-1.jsonl}, as earlier versions wrote them) or a
 * block of its lines ({@code events.jsonl#L85-L167}, from 1, both included). A report lists its
 * runs in the order their blocks have in the file, so one reader goes through the file once,
 * forward, for the whole page; a block before the reader's place opens the file again. Only
 * files inside the report's folder are read, links followed. Not thread-safe: one page's.
 */
final class EventSource implements AutoCloseable {

    private static final Pattern BLOCK = Pattern.compile("(.+)#L(\\d{1,12})-L(\\d{1,12})");

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
        Matcher block = BLOCK.matcher(reference);
        boolean lines = block.matches();       // matched once: a page asks for every run's block
        String name = lines ? block.group(1) : reference;
        long from = lines ? Long.parseLong(block.group(2)) : 1;
        long to = lines ? Long.parseLong(block.group(3)) : Long.MAX_VALUE;
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
        Matcher block = BLOCK.matcher(reference);
        boolean lines = block.matches();
        long from = first[0] >= 0 ? first[0] : lines ? Long.parseLong(block.group(2)) : 1;
        return new Block(lines ? block.group(1) : reference, from, text.toString(), problem);
    }

    /**
     * {@code reference}, a block of a file's lines, from {@code text}, that block as the file
     * holds it (each line ended by a line break): what {@link #block} would read from the file.
     * Null when the reference is not a block or the text has not its lines (then the file is read).
     */
    static Block given(String reference, String text) {
        Matcher block = reference == null || text == null ? null : BLOCK.matcher(reference);
        if (block == null || !block.matches() || text.indexOf('\r') >= 0) {
            return null;        // a reader splits at a carriage return too: read from the file, as it would be
        }
        long from = Long.parseLong(block.group(2));
        long count = Long.parseLong(block.group(3)) - from + 1;
        long breaks = 0;
        for (int at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
            breaks++;
        }
        return breaks == count && (text.isEmpty() || text.charAt(text.length() - 1) == '\n')
                ? new Block(block.group(1), from, text, null) : null;
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
