package dev.bellows.mcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads a server's output line by line in bounded memory, whatever it sends: a line is never
 * held whole when it is longer than the bounds. For stdout (newline-delimited JSON-RPC), each
 * JSON string is cut to {@link #MAX_STRING_CHARS} characters as its bytes arrive, the rest
 * replaced by a note, so that a 50 MB tool result becomes a message of a few megabytes that
 * still parses (the agent's own result limit then cuts it to what the model reads); a line
 * still longer than its byte limit after that is reported {@link #TOO_LONG}. For stderr, a
 * line is cut to its byte limit.
 *
 * <p>Not thread-safe: one reader per stream, on that stream's thread.
 */
final class BoundedLineReader {

    /** The most characters of one JSON string of a message kept; ten times the default result limit's worth. */
    static final int MAX_STRING_CHARS = 2_000_000;

    /** Returned for a stdout line longer than its limit even with its strings cut. */
    static final String TOO_LONG = new String("(too long)");

    private final InputStream in;
    private final int maxLineBytes;
    private final boolean cutJsonStrings;
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;

    /**
     * @param maxLineBytes   the most bytes of a line kept
     * @param cutJsonStrings whether lines are JSON whose long strings are cut (stdout), or text cut at the limit (stderr)
     */
    BoundedLineReader(InputStream in, int maxLineBytes, boolean cutJsonStrings) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
        this.cutJsonStrings = cutJsonStrings;
    }

    /** The next line without its end (a CR before the LF dropped); null at the end of the stream. */
    String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        boolean any = false;
        boolean tooLong = false;
        boolean inString = false;
        boolean escape = false;
        int hexLeft = 0;
        long chars = 0;
        boolean dropping = false;
        long dropped = 0;
        while (true) {
            int b = next();
            if (b < 0) {
                if (!any) {
                    return null;
                }
                break;
            }
            any = true;
            if (b == '\n') {
                break;
            }
            if (tooLong) {
                continue;
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
                if (escape) {
                    escape = false;
                } else if (b == '\\') {
                    escape = true;
                    dropped++;
                } else if (b == '"') {
                    line.writeBytes(("... [" + dropped + " more characters cut by Bellows as they arrived]\"")
                            .getBytes(StandardCharsets.US_ASCII));
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
                if (lead && chars >= MAX_STRING_CHARS) {
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
                tooLong = true;
            }
        }
        if (tooLong && cutJsonStrings) {
            return TOO_LONG;
        }
        byte[] bytes = line.toByteArray();
        int length = Math.min(bytes.length, maxLineBytes);
        if (length > 0 && bytes[length - 1] == '\r') {
            length--;
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
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
}
