package dev.bellows.bench;

import dev.bellows.event.StreamEvent;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The inputs of the benchmarks, generated deterministically (a fixed-seed {@link Random},
 * whose algorithm the JDK specifies, so every JDK and every run gets the same text), plus
 * the helpers that split them into chunks and count what they emit.
 *
 * <p>{@code java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.Transcripts}
 * prints, for every benchmark configuration, the characters, chunks and events per
 * operation: the numbers BENCHMARKS.md divides by.
 *
 * <p>"Character" means a UTF-16 {@code char} of the Java string (the transcripts are ASCII
 * except for a few {@code é}, so it is also, within 0.1%, a byte of UTF-8).
 */
public final class Transcripts {

    /** Length of {@link #mixed()} in chars: 32 KiB, a multiple of every chunk size benchmarked. */
    public static final int MIXED_CHARS = 32 * 1024;

    private static final long MIXED_SEED = 0x5EED_B311_0005L;
    private static final long TOOL_CALL_SEED = 0x5EED_B311_0007L;

    private Transcripts() {
    }

    /** A generated transcript and the blocks it was built with, to check the parse against. */
    public record Transcript(String text, int thinkingBlocks, int toolCalls) {
    }

    // ---- the mixed transcript ----------------------------------------------------------

    /**
     * A realistic agent answer of exactly {@link #MIXED_CHARS} chars: several turns, each of
     * {@code <thinking>} reasoning, prose with {@code <} and {@code >} that is not a tag
     * ({@code a < b}, {@code <b>}, {@code x<10}, {@code </div>}, {@code <toolbox>}), a
     * {@code write_file} tool call whose JSON string argument is a few KB of escaped source
     * (quotes, backslashes, newlines, tabs, {@code \u00e9}, {@code <}, a CDATA section),
     * small JSON calls (one in a Markdown fence), an XML-form call with a CDATA argument,
     * attributes on some tags, a self-closing block, and whitespace runs between blocks.
     */
    public static Transcript mixed() {
        Generator g = new Generator(new Random(MIXED_SEED));
        StringBuilder out = new StringBuilder(MIXED_CHARS);
        out.append("Sure. Let me look at why the build fails when x<10 before changing anything.\n\n");
        int turns = 0;
        // Whole turns while they fit; the turn that reaches the budget gets a shorter file.
        while (g.turn(out, turns, MIXED_CHARS - 300 - out.length())) {
            turns++;
        }
        if (turns < 4) {
            throw new IllegalStateException("transcript generator: only " + turns + " turns fit");
        }
        // Pad with closing prose to the exact length; the last char is a full stop.
        out.append("\n\nTo sum up: ");
        while (out.length() < MIXED_CHARS) {
            out.append(g.pick(PROSE)).append(' ');
        }
        out.setLength(MIXED_CHARS - 1);
        out.append('.');
        return new Transcript(out.toString(), g.thinkingBlocks, g.toolCalls);
    }

    // ---- one big tool call -------------------------------------------------------------

    /** What {@link #bigToolCall(int)} writes before its arguments object. */
    static final String BIG_CALL_PREFIX = "<tool>\n{\"tool_name\": \"write_file\", \"arguments\": ";
    /** What {@link #bigToolCall(int)} writes after its arguments object. */
    static final String BIG_CALL_SUFFIX = "}\n</tool>";

    /**
     * A stream that is one JSON tool call, {@code write_file}, whose {@code arguments} object
     * is exactly {@code argumentChars} chars: {@code {"path": ..., "content": "..."}} with the
     * content a JSON string of escaped source (the same kind of text as in {@link #mixed()}).
     * The whole stream is {@code argumentChars + 57} chars.
     */
    public static String bigToolCall(int argumentChars) {
        String head = "{\"path\": \"data/generated/Big.java\", \"content\": \"";
        String tail = "\"}";
        int contentChars = argumentChars - head.length() - tail.length();
        if (contentChars < 0) {
            throw new IllegalArgumentException("arguments of at least " + (head.length() + tail.length()) + " chars");
        }
        Generator g = new Generator(new Random(TOOL_CALL_SEED));
        StringBuilder content = new StringBuilder(contentChars + 256);
        StringBuilder line = new StringBuilder();
        while (true) {
            line.setLength(0);
            jsonEscape(g.codeLine() + "\n", line);
            if (content.length() + line.length() > contentChars) {
                break;
            }
            content.append(line);
        }
        while (content.length() < contentChars) { // never cut inside an escape: pad with letters
            content.append('z');
        }
        String stream = BIG_CALL_PREFIX + head + content + tail + BIG_CALL_SUFFIX;
        if (stream.length() != argumentChars + BIG_CALL_PREFIX.length() + BIG_CALL_SUFFIX.length()) {
            throw new AssertionError("big tool call has the wrong length");
        }
        return stream;
    }

    // ---- splitting and counting --------------------------------------------------------

    /**
     * {@code text} cut into message chunks of {@code size} chars (the last one may be
     * shorter). With {@code share}, chunks with the same text are one {@link StreamChunk}
     * instance, so the input stays small and in cache whatever the stream length (the
     * processor never keeps chunks, so this changes nothing in its output).
     */
    public static StreamChunk[] split(String text, int size, boolean share) {
        if (size < 1) {
            throw new IllegalArgumentException("chunk size " + size);
        }
        int n = (text.length() + size - 1) / size;
        StreamChunk[] chunks = new StreamChunk[n];
        Map<String, StreamChunk> seen = share ? new HashMap<>() : null;
        for (int i = 0; i < n; i++) {
            String piece = text.substring(i * size, Math.min(text.length(), (i + 1) * size));
            chunks[i] = share ? seen.computeIfAbsent(piece, StreamChunk::message) : StreamChunk.message(piece);
        }
        return chunks;
    }

    /** What one run of the processor over some chunks emitted. */
    public record Counts(long chars, int chunks, long events, Map<String, Long> byType,
                         StreamEvent.Complete complete, boolean toolCallsTerminated) {

        long of(String type) {
            return byType.getOrDefault(type, 0L);
        }

        @Override
        public String toString() {
            return chars + " chars, " + chunks + " chunks, " + events + " events " + byType;
        }
    }

    /** Runs a fresh processor (default options) over {@code chunks} once and counts its events. */
    public static Counts count(StreamChunk[] chunks) {
        return count(chunks, StreamOptions.defaults());
    }

    /** Runs a fresh processor with {@code options} over {@code chunks} once and counts its events. */
    public static Counts count(StreamChunk[] chunks, StreamOptions options) {
        Map<String, Long> byType = new TreeMap<>();
        boolean[] unterminated = {false};
        StreamProcessor processor = new StreamProcessor(options, event -> {
            byType.merge(event.type(), 1L, Long::sum);
            if (event instanceof StreamEvent.ToolCallEnd && event.chunk() == chunks.length) {
                unterminated[0] = true; // a tool call ended by the end of the stream
            }
        });
        long chars = 0;
        for (StreamChunk chunk : chunks) {
            chars += chunk instanceof StreamChunk.Text text ? text.text().length()
                    : chunk instanceof StreamChunk.Reasoning thinking ? thinking.text().length() : 0;
            processor.accept(chunk);
        }
        StreamEvent.Complete complete = processor.finish();
        long events = byType.values().stream().mapToLong(Long::longValue).sum();
        return new Counts(chars, chunks.length, events, byType, complete, !unterminated[0]);
    }

    /**
     * Checks that {@code counts} is the parse of {@code transcript}: every thinking block and
     * every tool call was recognised and closed by its own tag. Guards the benchmarks against
     * a generator change that would, say, leave a tool call open to the end.
     */
    static void check(Transcript transcript, Counts counts) {
        String problem = null;
        if (counts.of("thinking_end") != transcript.thinkingBlocks()) {
            problem = counts.of("thinking_end") + " thinking blocks, expected " + transcript.thinkingBlocks();
        } else if (counts.of("tool_call_end") != transcript.toolCalls()) {
            problem = counts.of("tool_call_end") + " tool calls, expected " + transcript.toolCalls();
        } else if (!counts.toolCallsTerminated()) {
            problem = "a tool call was still open at the end of the stream";
        } else if (counts.complete().message().contains("tool_name")) {
            problem = "tool call text leaked into the message";
        } else if (!counts.complete().message().contains("x<10")) {
            problem = "the message lost the plain text x<10";
        }
        if (problem != null) {
            throw new IllegalStateException("benchmark input does not parse as built: " + problem + "; " + counts);
        }
    }

    /** Prints the per-operation counts of every benchmark configuration (for BENCHMARKS.md). */
    public static void main(String[] args) {
        Transcript mixed = mixed();
        System.out.println("TranscriptBenchmark: " + mixed.text().length() + " chars, "
                + mixed.thinkingBlocks() + " thinking blocks, " + mixed.toolCalls() + " tool calls");
        for (int size : new int[] {1, 4, 16, 256}) {
            Counts counts = count(split(mixed.text(), size, false));
            check(mixed, counts);
            System.out.println("  chunkSize=" + size + ": " + counts);
        }
        System.out.println("LinearityBenchmark (4-char chunks):");
        for (int size : new int[] {10 * 1024, 1024 * 1024, 10 * 1024 * 1024}) {
            Counts counts = count(split(bigToolCall(size), 4, true));
            System.out.println("  argumentChars=" + size + ": " + counts);
        }
    }

    // ---- text --------------------------------------------------------------------------

    /** Appends {@code s} as the inside of a JSON string, escaped as common serializers do. */
    static void jsonEscape(String s, StringBuilder out) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }

    /** Reasoning sentences: mostly plain, some with comparisons and tag-like text. */
    private static final String[] REASONING = {
        "The failing test is the one that feeds an empty list, so the bound check matters.",
        "If a < b and c > d then the branch on line 42 is dead code.",
        "The loop runs while i < n, and n > 0 here, so the first pass always happens.",
        "The index is a Map<String, List<Integer>>, so get() can return null for a new key.",
        "x<10 holds for every value the fixture uses; x >= 10 never happens in the tests.",
        "The old code wrote <b>bold</b> into the log, and the viewer escapes it as &lt;b&gt;.",
        "A stray </div> or <br/> in the template is plain text to the parser.",
        "Maybe <toolbox> is just a word in the docs, and <think-tank> too.",
        "Check that 3 << 2 == 12 and 12 >> 2 == 3 before trusting the shift.",
        "I should read the writer before touching the reader; the bug may be upstream.",
        "The user asked for a small fix, not for a rewrite of the whole module.",
        "Two things could explain it: a race in the cache, or a stale file on disk.",
        "The stack trace points at the parser, not at the writer, which is odd.",
        "Let me keep the public API unchanged and only fix the helper.",
        "The timeout is 30s, and the test takes about 2s, so it is not a timeout.",
        "Wait -- the comparator returns a - b, which overflows when a < 0 < b.",
        "The caf\u00e9 fixture has a non-ASCII name, so the encoding must be UTF-8.",
    };

    /** Message prose: what the model tells the user. */
    private static final String[] PROSE = {
        "I found the problem.",
        "The check `if (count < limit)` was inverted, so `count > limit` slipped through.",
        "Values with x<10 are now rejected early.",
        "The template still prints <b>bold</b> labels, which is fine.",
        "Nothing else depends on the <div> wrapper, so I left it alone.",
        "Next I will run the tests to be sure.",
        "This keeps the change small and easy to review.",
        "Note that a -> b in the docs means \"a maps to b\", not a comparison.",
        "The old behaviour (n <= 0) is kept for compatibility.",
        "Let me know if you want the larger refactoring as well.",
        "Here is what changed and why.",
        "The build passes locally with `mvn -q verify`.",
    };

    /** Source lines for file contents: Java and HTML with quotes, backslashes, tabs, {@code <}. */
    private static final String[] CODE = {
        "package com.example.app;",
        "",
        "import java.util.HashMap;",
        "import java.util.List;",
        "import java.util.Map;",
        "/** Keeps the index of every <b>visible</b> row; caf\u00e9 names are UTF-8. */",
        "public final class Index {",
        "    private final Map<String, List<Integer>> rows = new HashMap<>();",
        "    static final String GREETING = \"Hello, \\\"world\\\"\\n\";",
        "    static final String WINDOWS_PATH = \"C:\\\\Users\\\\dev\\\\app\";",
        "\tif (count < limit && limit > 0) {",
        "\t\treturn x < 10 ? \"<small>\" : \"<big>\";",
        "        items.add(\"<li class=\\\"row\\\">\" + name + \"</li>\");",
        "        // parse </tool_name> and </toolbox> as plain text",
        "        String xml = \"<![CDATA[a < b && c > d]]>\";",
        "        for (int i = 0; i < n; i++) { sum += values[i] >> 1; }",
        "    }",
        "}",
        "<div class=\"card\"><span>${a} &lt; ${b}</span></div>",
        "<p>Total: <strong>{{ total }}</strong> items</p>",
        "        log.debug(\"took {} ms (limit < {} ms)\", took, limit);",
        "        assert from <= to : \"from > to: \" + from + \" > \" + to;",
    };

    private static final String[] FILES = {
        "src/main/java/com/example/app/Index.java",
        "src/main/java/com/example/app/Rows.java",
        "src/main/resources/templates/card.html",
        "src/test/java/com/example/app/IndexTest.java",
    };

    /** Writes turns from the text pools; counts the blocks it writes. */
    private static final class Generator {
        private final Random random;
        int thinkingBlocks;
        int toolCalls;

        Generator(Random random) {
            this.random = random;
        }

        String pick(String[] pool) {
            return pool[random.nextInt(pool.length)];
        }

        String codeLine() {
            return pick(CODE);
        }

        void sentences(StringBuilder out, String[] pool, int n) {
            for (int i = 0; i < n; i++) {
                out.append(pick(pool));
                out.append(random.nextInt(4) == 0 ? "\n" : " ");
            }
        }

        /**
         * Appends one turn (reasoning, prose, a big write_file call, smaller calls) of at most
         * {@code budget} chars, shortening the written file to fit; returns false, appending
         * nothing, when not even a short file fits.
         */
        boolean turn(StringBuilder out, int index, int budget) {
            int thinkingBefore = thinkingBlocks;
            int toolCallsBefore = toolCalls;
            StringBuilder head = new StringBuilder();
            StringBuilder tail = new StringBuilder();
            turnHead(head, index);
            turnTail(tail, index);
            StringBuilder file = new StringBuilder();
            StringBuilder line = new StringBuilder();
            int lines = 50 + random.nextInt(40);
            for (int i = 0; i < lines; i++) {
                line.setLength(0);
                jsonEscape(codeLine() + "\n", line);
                if (head.length() + file.length() + line.length() + tail.length() > budget) {
                    if (i < 10) {
                        thinkingBlocks = thinkingBefore; // nothing of this turn is used
                        toolCalls = toolCallsBefore;
                        return false;
                    }
                    break;
                }
                file.append(line);
            }
            out.append(head).append(file).append(tail);
            return true;
        }

        /** Reasoning, prose, and the big call up to its file content. */
        private void turnHead(StringBuilder out, int index) {
            // Reasoning, sometimes with attributes, sometimes as <think>.
            out.append(index % 3 == 1 ? "<thinking effort=\"high\">\n" : index % 3 == 2 ? "<think>" : "<thinking>\n");
            sentences(out, REASONING, 8 + random.nextInt(6));
            out.append(index % 3 == 2 ? "</think>" : "\n</thinking>");
            thinkingBlocks++;
            out.append("\n\n   ");

            // Prose, with a whitespace run in the middle and trailing spaces.
            sentences(out, PROSE, 3 + random.nextInt(3));
            out.append("   \n\n\t\n");
            sentences(out, PROSE, 2 + random.nextInt(2));
            out.append("\n\n");

            // The big call: write_file with a few KB of escaped source (the caller adds it).
            out.append(index % 2 == 0 ? "<tool>\n" : "<tool id=\"call_" + index + "\">\n");
            out.append("{\"tool_name\": \"write_file\", \"arguments\": {\"path\": \"")
                    .append(pick(FILES)).append("\", \"content\": \"");
        }

        /** The end of the big call, then smaller calls and blocks. */
        private void turnTail(StringBuilder out, int index) {
            out.append("\"}}\n</tool>");
            toolCalls++;
            out.append("\n\nThe file is written.    \n\n");

            // A small call: in a Markdown fence on even turns, plain on odd ones.
            if (index % 2 == 0) {
                out.append("<tool_call>\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"")
                        .append(pick(FILES)).append("\"}}\n```\n</tool_call>");
            } else {
                out.append("<tool>{\"tool\": \"run_command\", \"arguments\": "
                        + "\"{\\\"command\\\": \\\"mvn -q test\\\"}\"}</tool>");
            }
            toolCalls++;
            out.append("\n");

            // An XML-form call with a CDATA argument on every other turn.
            if (index % 2 == 1) {
                out.append("<tool_call>\n  <server_name>shell</server_name>\n  <tool_name>run_command</tool_name>\n"
                        + "  <arguments>\n    <command>mvn -q test &amp;&amp; echo &quot;ok&quot;</command>\n"
                        + "    <cwd>/work/app</cwd>\n"
                        + "    <script><![CDATA[if [ \"$n\" -lt 10 ]; then echo \"<done>\"; fi # </tool_call> is text here]]></script>\n"
                        + "  </arguments>\n</tool_call>\n");
                toolCalls++;
            }

            // An empty, self-closing thinking block now and then.
            if (index % 4 == 3) {
                out.append("<thinking/>");
                thinkingBlocks++;
            }
            out.append("\n\n");
        }
    }
}
