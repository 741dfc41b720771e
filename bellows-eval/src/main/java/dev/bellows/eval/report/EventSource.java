package dev.bellows.eval.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
     * A reference's lines read ahead, for a transcript made later on another thread: the lines
     * with their numbers, or why they could not be read.
     */
    record Lines(List<String> lines, List<Long> numbers, Unreadable problem) {

        /** Gives {@code sink} the lines, as {@link EventSource#read} would have. */
        void replay(LineSink sink) throws Unreadable {
            if (problem != null) {
                throw problem;
            }
            for (int i = 0; i < lines.size(); i++) {
                sink.line(lines.get(i), numbers.get(i));
            }
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

    /** The lines {@code reference} names, read now (as {@link #read} reads them), to be replayed later. */
    Lines readAhead(String reference) {
        List<String> lines = new ArrayList<>();
        List<Long> numbers = new ArrayList<>();
        try {
            read(reference, (line, number) -> {
                lines.add(line);
                numbers.add(number);
            });
            return new Lines(lines, numbers, null);
        } catch (Unreadable e) {
            return new Lines(List.of(), List.of(), e);
        }
    }

    /**
     * The lines of {@code reference}, a block of a file's lines, from {@code text}, that block as
     * the file holds it (each line ended by a line break): as {@link #readAhead} would read them
     * from the file. Null when the reference is not a block or the text has not its lines.
     */
    static Lines lines(String reference, String text) {
        Matcher block = reference == null || text == null ? null : BLOCK.matcher(reference);
        if (block == null || !block.matches()) {
            return null;
        }
        long from = Long.parseLong(block.group(2));
        long count = Long.parseLong(block.group(3)) - from + 1;
        List<String> lines = new ArrayList<>((int) Math.min(count, 1 << 16));
        List<Long> numbers = new ArrayList<>(lines.size());
        for (int start = 0, end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
            String line = text.substring(start, end);
            if (line.indexOf('\r') >= 0) {
                return null;        // a reader splits there too: read from the file, as it would be
            }
            numbers.add(from + lines.size());
            lines.add(line);
        }
        return lines.size() == count && (text.isEmpty() || text.charAt(text.length() - 1) == '\n') ? new Lines(lines, numbers, null) : null;
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
