package dev.bellows.stream.internal;

import tools.jackson.databind.node.StringNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the XML form of a tool call ({@code <tool_name>...</tool_name><arguments><path>a.txt</path>
 * ...</arguments>}) as it streams and reports each child element of its {@code <arguments>} whose
 * content is text, when the child's close tag completes: the name is the element's, the value its
 * text exactly as the parse gives it (references decoded, CDATA unwrapped in place, untrimmed; a
 * child that is, once trimmed, exactly one CDATA section gets that section's content). Children
 * with element children report nothing. Only the first top-level {@code <arguments>} counts.
 *
 * <p>It follows the grammar of the parse at the block's close ({@link XmlElementReader}): elements
 * with attributes skipped, text, CDATA, comments inside elements, a {@code <} that cannot start
 * markup taken as text; at anything the parse rejects (text between the top-level elements, a
 * mismatched close tag, a declaration...) it stops for good. Each character is looked at once and
 * only the text of the child being read is kept, so the cost is linear.
 */
final class XmlArgumentScanner implements ArgumentReader {

    private static final String CDATA_OPEN = "<![CDATA[";
    private static final String COMMENT_OPEN = "<!--";

    private static final int TEXT = 0;
    private static final int LT = 1;            // after '<'
    private static final int LT_SLASH = 2;      // after "</"
    private static final int BANG = 3;          // matching "<![CDATA[" or "<!--"
    private static final int OPEN_NAME = 4;     // in an open tag's name
    private static final int OPEN_ATTRIBUTES = 5;
    private static final int OPEN_SLASH = 6;    // after "<name/"
    private static final int CLOSE_NAME = 7;
    private static final int CLOSE_SPACE = 8;   // after a close tag's name: whitespace, then '>'
    private static final int CDATA = 9;
    private static final int COMMENT = 10;
    private static final int DONE = 11;

    private final Sink sink;
    private int state = TEXT;
    /** The names of the open elements, outermost first. */
    private final List<String> open = new ArrayList<>();
    private final StringBuilder name = new StringBuilder();
    private int bangMatched;
    /** The last non-whitespace character of an open tag's attribute section. */
    private char lastAttributeChar;
    private int closingBrackets;
    private int closingDashes;

    /** The {@code <arguments>} element is open at depth 1. */
    private boolean inArguments;
    private boolean argumentsSeen;

    // The child of <arguments> being read (depth 2).
    private String child;
    private boolean childHasElements;
    /** The child's decoded text so far (CDATA unwrapped in place). */
    private final StringBuilder decoded = new StringBuilder();
    /** The current run of plain text, decoded when markup ends it. */
    private final StringBuilder run = new StringBuilder();
    private boolean textBlank;
    private int cdataSections;
    private int cdataStart;
    private int cdataEnd;

    XmlArgumentScanner(Sink sink) {
        this.sink = sink;
    }

    @Override
    public void feed(CharSequence text, int from, int to) {
        int i = from;
        while (i < to && state != DONE) {
            if (state == TEXT) {
                int j = i;
                while (j < to && text.charAt(j) != '<') {
                    j++;
                }
                if (j > i) {
                    text(text, i, j);
                }
                if (j < to) {
                    state = LT;
                    j++;
                }
                i = j;
            } else {
                accept(text.charAt(i));
                i++;
            }
        }
    }

    private void accept(char c) {
        switch (state) {
            case LT -> lessThan(c);
            case LT_SLASH -> {
                if (isNameStart(c)) {
                    name.setLength(0);
                    name.append(c);
                    state = CLOSE_NAME;
                } else {
                    state = TEXT; // "</" not followed by a name: both are text
                    literal('<');
                    literal('/');
                    reread(c);
                }
            }
            case BANG -> bang(c);
            case OPEN_NAME -> {
                if (isNameChar(c)) {
                    name.append(c);
                } else if (c == '>') {
                    opened(false);
                } else if (c == '/') {
                    state = OPEN_SLASH;
                } else if (ContentText.isWhitespace(c)) {
                    lastAttributeChar = ' ';
                    state = OPEN_ATTRIBUTES;
                } else {
                    state = DONE;
                }
            }
            case OPEN_SLASH -> {
                if (c == '>') {
                    opened(true);
                } else {
                    state = DONE;
                }
            }
            case OPEN_ATTRIBUTES -> {
                if (c == '>') {
                    opened(lastAttributeChar == '/');
                } else if (c == '<') {
                    state = DONE;
                } else if (!ContentText.isWhitespace(c)) {
                    lastAttributeChar = c;
                }
            }
            case CLOSE_NAME -> {
                if (isNameChar(c)) {
                    name.append(c);
                } else if (c == '>') {
                    closed();
                } else if (ContentText.isWhitespace(c)) {
                    state = CLOSE_SPACE;
                } else {
                    state = DONE;
                }
            }
            case CLOSE_SPACE -> {
                if (c == '>') {
                    closed();
                } else if (!ContentText.isWhitespace(c)) {
                    state = DONE;
                }
            }
            case CDATA -> cdata(c);
            case COMMENT -> comment(c);
            default -> { }
        }
    }

    /** The character after '<' decides what the markup is, as the parse decides it. */
    private void lessThan(char c) {
        if (isNameStart(c)) {
            name.setLength(0);
            name.append(c);
            state = OPEN_NAME;
        } else if (c == '/') {
            state = LT_SLASH;
        } else if (c == '!') {
            bangMatched = 2;
            state = BANG;
        } else if (c == '?') {
            state = DONE; // a processing instruction: the parse rejects it
        } else {
            state = TEXT;
            literal('<');
            reread(c);
        }
    }

    private void bang(char c) {
        boolean cdata = bangMatched < CDATA_OPEN.length() && CDATA_OPEN.charAt(bangMatched) == c;
        boolean comment = bangMatched < COMMENT_OPEN.length() && COMMENT_OPEN.charAt(bangMatched) == c;
        if (!cdata && !comment) {
            state = DONE; // "<!" that is neither: a declaration, which the parse rejects
            return;
        }
        bangMatched++;
        if (cdata && bangMatched == CDATA_OPEN.length()) {
            if (open.isEmpty()) {
                state = DONE;
                return;
            }
            flushRun();
            cdataStart = decoded.length();
            closingBrackets = 0;
            state = CDATA;
        } else if (comment && bangMatched == COMMENT_OPEN.length()) {
            if (open.isEmpty()) {
                state = DONE;
                return;
            }
            flushRun();
            closingDashes = 0;
            state = COMMENT;
        }
    }

    private void cdata(char c) {
        if (c == '>' && closingBrackets >= 2) {
            if (recordingChild()) {
                decoded.setLength(decoded.length() - 2); // the "]]" of "]]>"
                cdataEnd = decoded.length();
                cdataSections++;
            }
            state = TEXT;
            return;
        }
        closingBrackets = c == ']' ? closingBrackets + 1 : 0;
        if (recordingChild()) {
            decoded.append(c);
        }
    }

    private void comment(char c) {
        if (c == '>' && closingDashes >= 2) {
            state = TEXT;
            return;
        }
        closingDashes = c == '-' ? closingDashes + 1 : 0;
    }

    // ---- text ----------------------------------------------------------------------------

    private void text(CharSequence text, int from, int to) {
        if (open.isEmpty()) {
            for (int i = from; i < to; i++) {
                if (!ContentText.isWhitespace(text.charAt(i))) {
                    state = DONE; // text between the top-level elements
                    return;
                }
            }
            return;
        }
        if (recordingChild()) {
            run.append(text, from, to);
        }
    }

    /** A character read outside a text run: a '<' that starts no markup, or the '/' after it. */
    private void literal(char c) {
        if (state == DONE) {
            return;
        }
        if (open.isEmpty()) {
            state = DONE; // text between the top-level elements
            return;
        }
        if (recordingChild()) {
            flushRun(); // a literal '<' ends a text run, as in the parse: references never span it
            decoded.append(c);
            if (!ContentText.isWhitespace(c)) {
                textBlank = false;
            }
        }
    }

    /** Reads {@code c} again in the state just set (it was the character after a literal '<'). */
    private void reread(char c) {
        if (state == DONE) {
            return;
        }
        if (c == '<') {
            state = LT;
        } else {
            text(String.valueOf(c), 0, 1);
        }
    }

    private void flushRun() {
        if (run.isEmpty()) {
            return;
        }
        int start = decoded.length();
        XmlReferences.decode(run.toString(), 0, run.length(), decoded);
        if (textBlank && !ContentText.isBlank(decoded.subSequence(start, decoded.length()))) {
            textBlank = false;
        }
        run.setLength(0);
    }

    private boolean recordingChild() {
        return child != null && !childHasElements && open.size() == 2;
    }

    // ---- elements ------------------------------------------------------------------------

    private void opened(boolean selfClosing) {
        if (open.size() >= XmlElementReader.MAX_DEPTH) {
            state = DONE;
            return;
        }
        String element = name.toString();
        state = TEXT;
        if (open.size() == 2 && child != null) {
            flushRun();
            childHasElements = true; // a child with element children reports nothing
        }
        if (open.isEmpty() && element.equals("arguments") && !argumentsSeen) {
            argumentsSeen = true;
            inArguments = !selfClosing;
        } else if (open.size() == 1 && inArguments) {
            startChild(element);
            if (selfClosing) {
                endChild();
            }
        }
        if (!selfClosing) {
            open.add(element);
        }
    }

    private void closed() {
        String element = name.toString();
        state = TEXT;
        if (open.isEmpty() || !open.getLast().equals(element)) {
            state = DONE; // the parse rejects a close tag that closes nothing or another element
            return;
        }
        open.removeLast();
        if (open.size() == 1 && inArguments && child != null) {
            endChild();
        } else if (open.isEmpty() && inArguments) {
            inArguments = false;
            state = DONE; // the arguments ended: only the first <arguments> counts
        }
    }

    private void startChild(String element) {
        child = element;
        childHasElements = false;
        decoded.setLength(0);
        run.setLength(0);
        textBlank = true;
        cdataSections = 0;
    }

    private void endChild() {
        flushRun();
        if (!childHasElements) {
            String value = cdataSections == 1 && textBlank
                    ? decoded.substring(cdataStart, cdataEnd)
                    : decoded.toString();
            sink.argument(child, StringNode.valueOf(value));
        }
        child = null;
        decoded.setLength(0);
    }

    // ---- names, as the parse reads them --------------------------------------------------

    private static boolean isNameStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
                || (c >= 0x80 && (Character.isLetter(c) || Character.isSurrogate(c)));
    }

    private static boolean isNameChar(char c) {
        if (c < 0x80) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == ':' || c == '-' || c == '.';
        }
        return !Character.isWhitespace(c) && !Character.isSpaceChar(c) && !Character.isISOControl(c);
    }
}
