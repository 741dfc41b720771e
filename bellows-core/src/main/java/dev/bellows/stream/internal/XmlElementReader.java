package dev.bellows.stream.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Reads a sequence of sibling XML elements with only whitespace between them, the XML
 * form of a tool call. A small hand-written reader rather than the JDK's XML stack:
 * the contract is narrower and more forgiving than XML in defined ways (bare '&' and
 * '<' stay text, no DTDs, no namespaces), and the JDK parsers cost a lot for a few
 * hundred bytes and come with entity-expansion risks.
 *
 * <p>What it accepts:
 * <ul>
 *   <li>elements, names case-sensitive, made of letters, digits, '_', ':', '-', '.'
 *       (not starting with a digit, '-' or '.'), or non-ASCII letters;</li>
 *   <li>attributes, skipped: as for the stream's own tags, the attribute section runs to
 *       the first '>' and holds no '<'; a '/' last before the '>' makes the element
 *       self-closing ({@code <arguments/>} is an empty element);</li>
 *   <li>text, with references decoded by {@link XmlReferences}; a '<' that cannot start
 *       markup ({@code x < 5}, {@code a <= b}) is text, as a bare '&' is;</li>
 *   <li>CDATA sections, taken literally;</li>
 *   <li>comments inside elements, skipped. Between the top-level elements they are an
 *       error, as is any text that is not whitespace.</li>
 * </ul>
 * Processing instructions and declarations ({@code <?xml ...?>}, {@code <!DOCTYPE>})
 * are errors. It reads each character once (plus a bounded look-ahead), without
 * recursion, so its cost is linear and deep nesting cannot overflow the stack; nesting
 * deeper than {@link #MAX_DEPTH} is an error so the arguments built from the tree stay
 * well inside Jackson's own nesting limit.
 */
final class XmlElementReader {

    static final int MAX_DEPTH = 256;

    private static final String CDATA_OPEN = "<![CDATA[";
    private static final String CDATA_CLOSE = "]]>";
    private static final String COMMENT_OPEN = "<!--";
    private static final String COMMENT_CLOSE = "-->";


    /** An element whose close tag has not been read yet. */
    private static final class OpenElement {
        final String name;
        final int offset;
        final List<XmlNode> children = new ArrayList<>();
        StringBuilder text;

        OpenElement(String name, int offset) {
            this.name = name;
            this.offset = offset;
        }

        /** Text runs split by comments or literal '<' are merged into one text node. */
        StringBuilder text() {
            if (text == null) {
                text = new StringBuilder();
            }
            return text;
        }

        void add(XmlNode node) {
            flushText();
            children.add(node);
        }

        XmlNode.Element close() {
            flushText();
            return new XmlNode.Element(name, List.copyOf(children), offset);
        }

        private void flushText() {
            if (text != null && !text.isEmpty()) {
                children.add(new XmlNode.Text(text.toString()));
            }
            text = null;
        }
    }

    private final String text;
    private final Deque<OpenElement> open = new ArrayDeque<>();
    private final List<XmlNode.Element> siblings = new ArrayList<>();
    private int pos;

    private XmlElementReader(String text) {
        this.text = text;
    }

    /** The top-level elements of {@code text}, in order. */
    static List<XmlNode.Element> readSiblings(String text) throws SyntaxError {
        return new XmlElementReader(text).read();
    }

    private List<XmlNode.Element> read() throws SyntaxError {
        while (pos < text.length()) {
            if (text.charAt(pos) != '<') {
                readText();
            } else if (text.startsWith(CDATA_OPEN, pos)) {
                readCData();
            } else if (text.startsWith(COMMENT_OPEN, pos)) {
                readComment();
            } else if (isNameStartAt(pos + 1)) {
                readOpenTag();
            } else if (text.startsWith("</", pos) && isNameStartAt(pos + 2)) {
                readCloseTag();
            } else if (pos + 1 < text.length() && (text.charAt(pos + 1) == '!' || text.charAt(pos + 1) == '?')) {
                throw new SyntaxError("unsupported markup " + ContentText.quote(text.substring(pos))
                        + ": use only elements, text and <![CDATA[...]]> sections", pos);
            } else {
                literalText(pos, pos + 1);
                pos++;
            }
        }
        if (!open.isEmpty()) {
            OpenElement unclosed = open.peek();
            throw new SyntaxError("<" + unclosed.name + "> is opened here but never closed: add </"
                    + unclosed.name + ">", unclosed.offset);
        }
        return siblings;
    }

    private void readText() throws SyntaxError {
        int end = text.indexOf('<', pos);
        if (end < 0) {
            end = text.length();
        }
        literalText(pos, end);
        pos = end;
    }

    /** Text between tags: decoded inside an element, only whitespace allowed outside. */
    private void literalText(int from, int to) throws SyntaxError {
        OpenElement current = open.peek();
        if (current != null) {
            XmlReferences.decode(text, from, to, current.text());
            return;
        }
        int first = ContentText.skipWhitespace(text, from, to);
        if (first < to) {
            throw outsideElements(first);
        }
    }

    private SyntaxError outsideElements(int at) {
        int lineEnd = at;
        while (lineEnd < text.length() && text.charAt(lineEnd) != '\n' && lineEnd - at < 60) {
            lineEnd++;
        }
        return new SyntaxError("text outside of the elements: " + ContentText.quote(text.substring(at, lineEnd))
                + "; only whitespace may stand between <tool_name>, <arguments> and the other elements", at);
    }

    private void readCData() throws SyntaxError {
        if (open.isEmpty()) {
            throw outsideElements(pos);
        }
        int contentStart = pos + CDATA_OPEN.length();
        int close = text.indexOf(CDATA_CLOSE, contentStart);
        if (close < 0) {
            throw new SyntaxError("a <![CDATA[ section is never closed: end it with ]]>", pos);
        }
        open.peek().add(new XmlNode.CData(text.substring(contentStart, close)));
        pos = close + CDATA_CLOSE.length();
    }

    private void readComment() throws SyntaxError {
        if (open.isEmpty()) {
            throw new SyntaxError("comments are not allowed between the elements of a tool call: remove the <!-- -->",
                    pos);
        }
        int close = text.indexOf(COMMENT_CLOSE, pos + COMMENT_OPEN.length());
        if (close < 0) {
            throw new SyntaxError("a comment is never closed: end it with -->", pos);
        }
        pos = close + COMMENT_CLOSE.length();
    }

    private void readOpenTag() throws SyntaxError {
        int start = pos;
        int nameEnd = nameEnd(pos + 1);
        String name = text.substring(pos + 1, nameEnd);
        int i = nameEnd;
        boolean selfClosing;
        if (i < text.length() && text.charAt(i) == '>') {
            selfClosing = false;
        } else if (text.startsWith("/>", i)) {
            selfClosing = true;
            i++;
        } else if (i < text.length() && ContentText.isWhitespace(text.charAt(i))) {
            while (i < text.length() && text.charAt(i) != '>' && text.charAt(i) != '<') {
                i++;
            }
            if (i >= text.length() || text.charAt(i) == '<') {
                throw new SyntaxError("the tag <" + name + " is not closed with '>'", start);
            }
            int last = ContentText.trimEnd(text, nameEnd, i);
            selfClosing = text.charAt(last - 1) == '/';
        } else if (i >= text.length()) {
            throw new SyntaxError("the tag <" + name + " is not closed with '>'", start);
        } else {
            throw new SyntaxError("unexpected " + ContentText.describeChar(text, i) + " in the tag <" + name
                    + ": an element name ends with '>', '/>' or a space before attributes", i);
        }
        pos = i + 1;
        if (open.size() >= MAX_DEPTH) {
            throw new SyntaxError("elements are nested more than " + MAX_DEPTH + " levels deep", start);
        }
        OpenElement element = new OpenElement(name, start);
        if (selfClosing) {
            closed(element.close());
        } else {
            open.push(element);
        }
    }

    private void readCloseTag() throws SyntaxError {
        int start = pos;
        int nameEnd = nameEnd(pos + 2);
        String name = text.substring(pos + 2, nameEnd);
        int i = ContentText.skipWhitespace(text, nameEnd, text.length());
        if (i >= text.length() || text.charAt(i) != '>') {
            throw new SyntaxError("the closing tag </" + name + " is not closed with '>'", start);
        }
        OpenElement current = open.peek();
        if (current == null) {
            throw new SyntaxError("</" + name + "> closes nothing: there is no open <" + name + "> before it",
                    start);
        }
        if (!current.name.equals(name)) {
            throw new SyntaxError("</" + name + "> does not match the open <" + current.name + ">: close <"
                    + current.name + "> with </" + current.name + "> first (names are case-sensitive)", start);
        }
        open.pop();
        pos = i + 1;
        closed(current.close());
    }

    private void closed(XmlNode.Element element) {
        OpenElement parent = open.peek();
        if (parent == null) {
            siblings.add(element);
        } else {
            parent.add(element);
        }
    }

    private boolean isNameStartAt(int i) {
        if (i >= text.length()) {
            return false;
        }
        char c = text.charAt(i);
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
                || (c >= 0x80 && (Character.isLetter(c) || Character.isSurrogate(c)));
    }

    private int nameEnd(int from) {
        int i = from;
        while (i < text.length() && isNameChar(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isNameChar(char c) {
        if (c < 0x80) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == ':' || c == '-' || c == '.';
        }
        return !Character.isWhitespace(c) && !Character.isSpaceChar(c) && !Character.isISOControl(c);
    }
}
