package dev.bellows.bench.mock;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * An HTTP/1.1 request as the benchmarks' lean mocks read it off the socket, with no server
 * framework between (whose own allocations would blur what is measured): the request line and
 * the body (fixed length or chunked); headers other than the framing ones are skipped.
 *
 * @param line the request line, such as {@code POST /v1/messages HTTP/1.1}
 * @param body the body's bytes, empty when there is none
 */
public record RawRequest(String line, byte[] body) {

    /** The next request on the connection, or null at its end. */
    public static RawRequest read(InputStream in) throws IOException {
        String requestLine = readLine(in);
        if (requestLine == null) {
            return null;
        }
        long contentLength = -1;
        boolean chunked = false;
        for (String header = readLine(in); header != null && !header.isEmpty(); header = readLine(in)) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).trim();
            String value = header.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                contentLength = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (int size = Integer.parseInt(readLine(in).trim(), 16); size > 0;
                    size = Integer.parseInt(readLine(in).trim(), 16)) {
                body.write(in.readNBytes(size));
                readLine(in);
            }
            readLine(in);
            return new RawRequest(requestLine, body.toByteArray());
        }
        return new RawRequest(requestLine, contentLength <= 0 ? new byte[0] : in.readNBytes((int) contentLength));
    }

    /** Where {@code needle} first stands in {@code haystack} at or after {@code from}, or -1. */
    public static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** A line without its CR LF (or LF), or null at the end of the stream. */
    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int b = in.read(); b != -1; b = in.read()) {
            if (b == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) b);
        }
        return line.isEmpty() ? null : line.toString();
    }
}
