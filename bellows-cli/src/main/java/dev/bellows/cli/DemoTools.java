package dev.bellows.cli;

import dev.bellows.tool.Description;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The real tools {@code bellows demo} gives its agent, written as a user of the library
 * would write them: a record for the arguments, a lambda for the work. They compute on this
 * machine, deterministically, without network and without writing anything.
 *
 * <ul>
 *   <li>{@code calculator}: evaluates {@code + - * /} with parentheses ({@link Calculator});</li>
 *   <li>{@code word_count}: lines, words and characters of a document bundled with Bellows,
 *       counted like {@code wc -l -w -m}.</li>
 * </ul>
 */
final class DemoTools {

    /** The documents {@code word_count} can read, bundled next to this class. */
    static final List<String> DOCUMENTS = List.of("bellows.txt");

    private DemoTools() {
    }

    @Description("An arithmetic expression to evaluate")
    record Expression(@Description("Numbers, + - * / and parentheses, e.g. (3 + 4) * 2.5") String expression) {
    }

    @Description("Which bundled document to count")
    record Document(@Description("The document's name, e.g. bellows.txt") String document) {
    }

    /** What {@code word_count} returns; the model reads it as JSON. */
    record WordCount(String document, int lines, int words, int characters) {
    }

    static final Tool CALCULATOR = TypedTool.of("calculator",
            "Evaluates an arithmetic expression exactly: numbers, + - * / and parentheses. "
                    + "Use it for any arithmetic instead of computing in your head.",
            Expression.class,
            (context, arguments) -> ToolResult.of(Calculator.evaluate(arguments.expression())));

    static final Tool WORD_COUNT = TypedTool.of("word_count",
            "Counts the lines, words (separated by white space) and characters of a bundled document. "
                    + "Documents: " + String.join(", ", DOCUMENTS) + ".",
            Document.class,
            (context, arguments) -> ToolResult.of(count(arguments.document(), read(arguments.document()))));

    static List<Tool> all() {
        return List.of(CALCULATOR, WORD_COUNT);
    }

    static WordCount count(String name, String text) {
        String trimmed = text.strip();
        int words = trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
        int lines = (int) text.chars().filter(c -> c == '\n').count();
        return new WordCount(name, lines, words, text.codePointCount(0, text.length()));
    }

    /** A bundled document's text. */
    static String read(String name) throws ToolException {
        if (!DOCUMENTS.contains(name)) {
            throw new ToolException("no document \"" + name + "\"; available: " + String.join(", ", DOCUMENTS));
        }
        try (InputStream in = DemoTools.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("bundled document " + name + " is missing from the build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
