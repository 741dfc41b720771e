package dev.bellows.mcp;

import dev.bellows.memory.ResultLimit;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads a server's output line by line in bounded memory, whatever it sends: a line is never
 * held whole when it is longer than the bounds. For JSON-RPC messages (a stdio server's
 * stdout, an HTTP response body, the lines of an event stream), each JSON string is cut to
 * {@code maxStringChars} characters as its bytes arrive, the rest replaced by
 * {@link ResultLimit#arrivalNote a note saying how much was cut}, so that a 50 MB tool result
 * becomes a message of a few megabytes that still parses (the agent's own result limit then
 * cuts it to what the model reads, its note counting what was cut here); a line still longer
 * than its byte limit after that, or one of more than {@code maxSentBytes} as sent, is reported
 * {@link #TOO_LONG} at once, without reading on to its end (which may never come). For stderr,
 * a line is cut to its byte limit.
 *
 * <p>Not thread-safe: one reader per stream, on that stream's thread.
 */
final class BoundedLineReader {

    /** The most characters of one JSON string of a message kept; ten times the default result limit's worth. */
    static final int MAX_STRING_CHARS = 2_000_000;

    /** Returned by {@link #readLine()} for a line too long even with its strings cut; the reader is done then. */
    static final String TOO_LONG = new String("(too long)");

    /** Returned by {@link #readBytes()} for a line too long; the reader is done then. */
    static final byte[] TOO_LONG_BYTES = new byte[0];

    /** What ends a line. */
    enum Ends {
        /** LF, a CR before it dropped: newline-delimited JSON. */
        LF,
        /** CR, LF or CRLF, as in an event stream. */
        CR_LF,
        /** Only the end of the stream: the whole stream is one line (an HTTP response body). */
        STREAM
    }

    private final InputStream in;
    private final int maxLineBytes;
    /** 0 for text, cut at its byte limit. */
    private final int maxStringChars;
    private final long maxSentBytes;
    private final Ends ends;
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;
    /** A CR ended the last line: an LF right after it belongs to it. */
    private boolean afterCr;
    private boolean lastLineEnded;
    private boolean sentTooMuch;

    /**
     * A reader of text lines (stderr) or JSON lines (stdout), ended by LF, never cut for their
     * size as sent.
     *
     * @param maxLineBytes   the most bytes of a line kept
     * @param cutJsonStrings whether lines are JSON whose long strings are cut (stdout), or text cut at the limit (stderr)
     */
    BoundedLineReader(InputStream in, int maxLineBytes, boolean cutJsonStrings) {
        this(in, maxLineBytes, cutJsonStrings ? MAX_STRING_CHARS : 0, Long.MAX_VALUE, Ends.LF);
    }

    /**
     * @param maxLineBytes   the most bytes of a line kept (after its strings are cut)
     * @param maxStringChars the most characters of a JSON string kept; 0 for lines of text, cut at {@code maxLineBytes}
     * @param maxSentBytes   the most bytes of a line read, cut strings included (JSON lines only)
     * @param ends           what ends a line
     */
    BoundedLineReader(InputStream in, int maxLineBytes, int maxStringChars, long maxSentBytes, Ends ends) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
        this.maxStringChars = maxStringChars;
        this.maxSentBytes = maxSentBytes;
        this.ends = ends;
    }

    /** For a server configured to send messages of at most {@code maxMessageBytes}: its texts are cut to this. */
    static int maxStringChars(int maxMessageBytes) {
        return Math.min(MAX_STRING_CHARS, maxMessageBytes / 16);
    }

    /** For a server configured to send messages of at most {@code maxMessageBytes}: no message as sent is read past this. */
    static long maxSentBytes(int maxMessageBytes) {
        return 32L * maxMessageBytes;
    }

    /** The next line without its end (a CR before the LF dropped); null at the end of the stream. */
    String readLine() throws IOException {
        byte[] bytes = readBytes();
        if (bytes == null) {
            return null;
        }
        if (bytes == TOO_LONG_BYTES) {
            return TOO_LONG;
        }
        int length = bytes.length;
        if (ends == Ends.LF && length > 0 && bytes[length - 1] == '\r') {
            length--;
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    /** Whether the last line read was ended (by its end, not by the end of the stream). */
    boolean lastLineEnded() {
        return lastLineEnded;
    }

    /** Why the last {@link #TOO_LONG} line was: {@code "more than 32 MiB even with its texts cut to ..."}. */
    String tooLongWhy() {
        return sentTooMuch
                ? "more than " + size(maxSentBytes) + " as sent (its texts cut to " + maxStringChars + " characters)"
                : "more than " + size(maxLineBytes) + " even with its texts cut to " + maxStringChars + " characters";
    }

    /** The next line's bytes without its end; null at the end of the stream; {@link #TOO_LONG_BYTES} for one too long. */
    byte[] readBytes() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        boolean cutJsonStrings = maxStringChars > 0;
        boolean any = false;
        boolean tooLong = false;
        boolean inString = false;
        boolean escape = false;
        int hexLeft = 0;
        long chars = 0;
        boolean dropping = false;
        long dropped = 0;
        long sent = 0;
        lastLineEnded = false;
        while (true) {
            int b = next();
            if (b < 0) {
                if (!any) {
                    return null;
                }
                break;
            }
            if (afterCr) {
                afterCr = false;
                if (b == '\n') {
                    continue; // the LF of a CRLF
                }
            }
            any = true;
            if (b == '\n' && ends != Ends.STREAM) {
                lastLineEnded = true;
                break;
            }
            if (b == '\r' && ends == Ends.CR_LF) {
                afterCr = true;
                lastLineEnded = true;
                break;
            }
            if (tooLong) {
                continue;
            }
            if (cutJsonStrings && ++sent > maxSentBytes) {
                sentTooMuch = true;
                return TOO_LONG_BYTES;
            }
            if (!cutJsonStrings || !inString) {
                if (cutJsonStrings && b == '"') {
                    inString = true;
                    escape = false;
                    hexLeft = 0;
                    chars = 0;
                    dropping = false;
                    dropped = 0;
                }
                line.write(b);
            } else if (dropping) {
                if (hexLeft > 0) {
                    hexLeft--; // the digits of a \\u escape: one character in all, counted at its backslash
                } else if (escape) {
                    escape = false;
                    hexLeft = b == 'u' ? 4 : 0;
                } else if (b == '\\') {
                    escape = true;
                    dropped++;
                } else if (b == '"') {
                    line.writeBytes(ResultLimit.arrivalNote(dropped).getBytes(StandardCharsets.US_ASCII));
                    line.write('"');
                    inString = false;
                } else if ((b & 0xC0) != 0x80) {
                    dropped++;
                }
            } else if (hexLeft > 0) {
                hexLeft--;
                line.write(b);
            } else if (escape) {
                escape = false;
                hexLeft = b == 'u' ? 4 : 0;
                line.write(b);
            } else if (b == '"') {
                inString = false;
                line.write(b);
            } else {
                boolean lead = (b & 0xC0) != 0x80; // a new character begins: a clean place to stop
                if (lead && chars >= maxStringChars) {
                    dropping = true;
                    dropped = 1;
                    escape = b == '\\';
                    continue;
                }
                if (lead) {
                    chars++;
                }
                escape = b == '\\';
                line.write(b);
            }
            if (line.size() > maxLineBytes) {
                if (cutJsonStrings) {
                    sentTooMuch = false;
                    return TOO_LONG_BYTES;
                }
                tooLong = true;
            }
        }
        byte[] bytes = line.toByteArray();
        return bytes.length <= maxLineBytes ? bytes : java.util.Arrays.copyOf(bytes, maxLineBytes);
    }

    private int next() throws IOException {
        if (position == limit) {
            limit = in.read(buffer, 0, buffer.length);
            position = 0;
            if (limit <= 0) {
                limit = 0;
                return -1;
            }
        }
        return buffer[position++] & 0xFF;
    }

    /** {@code 32 MiB}, {@code 64 KiB}, {@code 1 GiB}, or bytes. */
    static String size(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " bytes";
    }
}
