package dev.bellows.cli;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.StringNode;
import dev.bellows.stream.StreamChunk;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the JSON Lines input of {@code bellows parse}: one chunk per line
 * ({@code {"type": "message"|"thinking", "content": "..."}}), or in batch mode one whole
 * stream per line ({@code {"chunks": [...]}}). Lines holding only whitespace (space, tab,
 * CR) are skipped but still counted, so an error names the physical line number.
 */
final class ChunkLineReader {

    /** A line that is not a valid chunk (or stream); the message says what to fix. */
    static final class BadLineException extends Exception {
        private final int line;

        BadLineException(int line, String message) {
            super(message, null, false, false);
            this.line = line;
        }

        /** The 1-based physical line number, blank lines counted. */
        int line() {
            return line;
        }
    }

    private static final String CHUNK_SHAPE = "{\"type\": \"message\", \"content\": \"...\"}";
    private static final String STREAM_SHAPE = "{\"chunks\": [" + CHUNK_SHAPE + ", ...]}";
    private static final int SHOWN_TEXT = 60;

    /** No limit on string length: one chunk may carry a very large tool argument. */
    private static final ObjectMapper MAPPER = Jackson.JSON;   // strings of any length: a chunk may be long

    private final InputStream in;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private int lineNumber;

    /**
     * Reads UTF-8 lines from {@code in}. Lines end at LF (a CR before it is dropped); each
     * line is decoded on its own, so bytes that are not UTF-8 are an error of their own line,
     * and a line is handed on as soon as its LF arrives.
     */
    ChunkLineReader(InputStream in) {
        this.in = in;
    }

    /** The next chunk, or {@code null} at the end of the input. */
    StreamChunk nextChunk() throws IOException, BadLineException {
        JsonNode json = nextValue();
        return json == null ? null : chunk(json, "");
    }

    /** The chunks of the next whole stream (batch mode), or {@code null} at the end of the input. */
    List<StreamChunk> nextStream() throws IOException, BadLineException {
        JsonNode json = nextValue();
        if (json == null) {
            return null;
        }
        if (!json.isObject()) {
            throw bad("expected a JSON object like " + STREAM_SHAPE + ", got " + kind(json));
        }
        JsonNode chunks = json.get("chunks");
        if (chunks == null) {
            throw bad("missing \"chunks\": in batch mode each line is one stream, " + STREAM_SHAPE);
        }
        if (!chunks.isArray()) {
            throw bad("\"chunks\" must be an array, got " + kind(chunks));
        }
        List<StreamChunk> stream = new ArrayList<>(chunks.size());
        for (int i = 0; i < chunks.size(); i++) {
            stream.add(chunk(chunks.get(i), "chunks[" + i + "]: "));
        }
        return stream;
    }

    /** The JSON value of the next non-blank line, or {@code null} at the end of the input. */
    private JsonNode nextValue() throws IOException, BadLineException {
        String text;
        do {
            text = readLine();
            if (text == null) {
                return null;
            }
        } while (isBlank(text));
        try (JsonParser parser = MAPPER.createParser(text)) {
            JsonNode json = MAPPER.readTree(parser);
            if (parser.nextToken() != null) {
                throw bad("not valid JSON (more text after the value, at column "
                        + parser.currentTokenLocation().getColumnNr() + "; put one value on each line)");
            }
            return json;
        } catch (JacksonException e) {
            // One line of input: its column is what locates the problem.
            throw bad("not valid JSON (" + shorten(dev.bellows.stream.internal.JsonSyntax.problem(text)
                    .orElse("it cannot be read").replace("line 1, column ", "column ")) + ")");
        }
    }

    /** The next physical line, decoded, without its line end; {@code null} at the end of the input. */
    private String readLine() throws IOException, BadLineException {
        line.reset();
        boolean ended = false;
        while (!ended) {
            if (position == limit) {
                int read = in.read(buffer);
                if (read < 0) {
                    if (line.size() == 0) {
                        return null;
                    }
                    break; // the last line has no LF
                }
                position = 0;
                limit = read;
            }
            int start = position;
            while (position < limit && buffer[position] != '\n') {
                position++;
            }
            line.write(buffer, start, position - start);
            if (position < limit) {
                position++; // the LF
                ended = true;
            }
        }
        lineNumber++;
        String text;
        try {
            text = utf8.decode(ByteBuffer.wrap(line.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw bad("not valid UTF-8");
        }
        if (text.endsWith("\r")) {
            text = text.substring(0, text.length() - 1);
        }
        if (lineNumber == 1 && text.startsWith("\uFEFF")) {
            text = text.substring(1); // a byte order mark, as some editors write
        }
        return text;
    }

    private StreamChunk chunk(JsonNode json, String where) throws BadLineException {
        if (!json.isObject()) {
            throw bad(where + "expected a JSON object like " + CHUNK_SHAPE + ", got " + kind(json));
        }
        boolean thinking = false;
        JsonNode typeName = json.get("type");
        if (typeName != null) {
            if (!typeName.isString()) {
                throw bad(where + "\"type\" must be \"message\" or \"thinking\", got " + kind(typeName));
            }
            thinking = switch (typeName.stringValue(null)) {
                case "message" -> false;
                case "thinking" -> true;
                default -> throw bad(where + "unknown chunk type " + shown(typeName.stringValue(null))
                        + " (use \"message\" or \"thinking\")");
            };
        }
        JsonNode content = json.get("content");
        if (content == null) {
            throw bad(where + "missing \"content\" (the chunk's text, a string)");
        }
        if (!content.isString()) {
            throw bad(where + "\"content\" must be a string, got " + kind(content));
        }
        return thinking ? StreamChunk.thinking(content.stringValue(null)) : StreamChunk.message(content.stringValue(null));
    }

    private BadLineException bad(String message) {
        return new BadLineException(lineNumber, message);
    }

    /** Blank as the stream contract counts whitespace: space, tab and CR (LF ends the line). */
    private static boolean isBlank(String line) {
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c != ' ' && c != '\t' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    private static String kind(JsonNode json) {
        return switch (json.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string " + shown(json.stringValue(null));
            case NUMBER -> "a number";
            case BOOLEAN -> json.booleanValue() ? "true" : "false";
            case NULL, MISSING -> "null";
            case BINARY, POJO -> "a " + json.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

    /** A user's string, quoted as JSON and cut short so the error stays one readable line. */
    private static String shown(String text) {
        if (text.length() <= SHOWN_TEXT) {
            return new StringNode(text).toString();
        }
        int end = Character.isHighSurrogate(text.charAt(SHOWN_TEXT - 1)) ? SHOWN_TEXT - 1 : SHOWN_TEXT;
        return new StringNode(text.substring(0, end)).toString() + "...";
    }

    private static String shorten(String message) {
        // Jackson names its own "line: 1" in locations; keep only the column.
        String text = message.replaceAll("\\[Source: [^\\]]*?line: \\d+, column: (\\d+)\\]", "column $1");
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
