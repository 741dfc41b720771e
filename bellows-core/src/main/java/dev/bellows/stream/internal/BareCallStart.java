package dev.bellows.stream.internal;


/**
 * Decides from its first characters whether a bare JSON object (Llama 3's calls, which have no
 * marker) is a tool call: once {@code {"name": "NAME", "parameters"} (or {@code "arguments"}) has
 * been read, NAME being a tool of the catalog, it is one, long before its object ends, so its
 * name can be announced there as vLLM, SGLang and llama.cpp stream it. An object that starts any
 * other way is not decided here: it keeps the held rule (a call only once complete). JSON whitespace may stand between the tokens; the keys must be written plainly.
 *
 * <p>Fed one character at a time from the object's {@code {}, and only until it decides, so its
 * cost is bounded by the name's length.
 */
final class BareCallStart {

    /** A name longer than this is not looked at: the object keeps the held rule. */
    static final int MAX_NAME = 256;

    private static final String NAME_KEY = "\"name\"";
    private static final String PARAMETERS_KEY = "\"parameters\"";
    private static final String ARGUMENTS_KEY = "\"arguments\"";

    private static final int BRACE = 0;
    private static final int NAME = 1;       // matching "name"
    private static final int COLON = 2;
    private static final int VALUE = 3;      // expecting the value's opening quote
    private static final int STRING = 4;     // in the name's string
    private static final int COMMA = 5;
    private static final int KEY = 6;        // matching "parameters" or "arguments"
    private static final int CALL = 7;
    private static final int NOT_CALL = 8;

    private final ParameterSchemas catalog;
    private final JsonStringDecoder string = new JsonStringDecoder();
    private int state = BRACE;
    /** Characters of the key being matched. */
    private int matched;
    /** While matching the second key: whether it may still be "parameters" / "arguments". */
    private boolean parameters;
    private boolean arguments;

    /** @param catalog the tools offered; empty when not known, and then every name is one */
    BareCallStart(ParameterSchemas catalog) {
        this.catalog = catalog;
    }

    /** Whether the object is known to be a call: its name and arguments key were read. */
    boolean isCall() {
        return state == CALL;
    }

    /** Whether it decided, either way: then it need not be fed any more. */
    boolean isDecided() {
        return state >= CALL;
    }

    void accept(char c) {
        boolean space = TagScanner.isWhitespace(c);
        state = switch (state) {
            case BRACE -> c == '{' ? NAME : NOT_CALL;
            case NAME -> nameKey(c, space);
            case COLON -> space ? COLON : c == ':' ? VALUE : NOT_CALL;
            case VALUE -> {
                if (space) {
                    yield VALUE;
                }
                string.start(MAX_NAME);
                yield c == '"' ? STRING : NOT_CALL;
            }
            case STRING -> nameChar(c);
            case COMMA -> space ? COMMA : c == ',' ? startSecondKey() : NOT_CALL;
            case KEY -> secondKey(c, space);
            default -> state;
        };
    }

    private int nameKey(char c, boolean space) {
        if (matched == 0 && space) {
            return NAME;
        }
        if (NAME_KEY.charAt(matched) != c) {
            return NOT_CALL;
        }
        matched++;
        return matched == NAME_KEY.length() ? COLON : NAME;
    }

    private int nameChar(char c) {
        return switch (string.accept(c)) {
            case MORE -> STRING;
            case INVALID -> NOT_CALL;
            case END -> {
                String name = string.value(); // null when longer than MAX_NAME
                boolean offered = name != null && !name.isEmpty() && (catalog.isEmpty() || catalog.offers(name));
                yield offered ? COMMA : NOT_CALL;
            }
        };
    }

    private int startSecondKey() {
        matched = 0;
        parameters = true;
        arguments = true;
        return KEY;
    }

    private int secondKey(char c, boolean space) {
        if (matched == 0 && space) {
            return KEY;
        }
        parameters = parameters && matched < PARAMETERS_KEY.length() && PARAMETERS_KEY.charAt(matched) == c;
        arguments = arguments && matched < ARGUMENTS_KEY.length() && ARGUMENTS_KEY.charAt(matched) == c;
        matched++;
        if (parameters && matched == PARAMETERS_KEY.length() || arguments && matched == ARGUMENTS_KEY.length()) {
            return CALL;
        }
        return parameters || arguments ? KEY : NOT_CALL;
    }
}
