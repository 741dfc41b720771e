package dev.bellows.stream.internal;

import dev.bellows.stream.StreamOptions;
import java.util.List;
import java.util.Map;

/**
 * The one incremental tag scanner: splits message text into plain text and blocks opened
 * and closed by thinking and tool tags, exactly as docs/stream-format.md "Tags" says.
 *
 * <p>It looks at every character once. Plain text is found with {@code indexOf('<')} and
 * handed on as ranges of the chunk; only a tag candidate (at most 256 characters) is ever
 * buffered, and when a candidate breaks, only the character that broke it is scanned
 * again. What the text means (whitespace, events, tool calls) is the {@link Sink}'s job.
 *
 * <p>Not thread-safe: one scanner per stream.
 */
public final class TagScanner implements BlockScanner {

    /** What the scanner finds, in stream order. Text ranges are only valid during the call. */
    public interface Sink {
        /** Text outside any block, before whitespace rules. */
        void messageText(CharSequence text, int from, int to);

        /**
         * The next tool block's body has this format rather than the dialect's (the contract's
         * {@code <tool>} blocks beside a dialect's own calls).
         */
        default void toolFormat(ToolBodyFormat format) {
        }

        /** An open tag was recognised; a self-closing tag is followed at once by {@link #blockClosed()}. */
        void blockOpened(BlockKind kind, String name, Map<String, String> attributes);

        /** Text inside the open block, untrimmed. */
        void blockText(CharSequence text, int from, int to);

        /** The open block's close tag was recognised. */
        void blockClosed();

        /**
         * A delimiter may begin at {@code c}, the open tool block's next character, which is held
         * back until it shows whether it is one: a tool name that ends there, whatever follows,
         * is complete now.
         */
        default void delimiterAhead(char c) {
        }

        /**
         * The open tool block broke off before {@code breaking}, which is not part of it (a bare
         * JSON call whose object broke): it is a malformed call.
         */
        default void blockBroken(char breaking) {
            blockClosed();
        }
    }

    public enum BlockKind { THINKING, TOOL }

    /** An open or close tag is at most this many characters, {@code <} and {@code >} included. */
    static final int MAX_TAG_LENGTH = 256;

    private static final String CDATA_OPEN = "<![CDATA[";

    // What the pending candidate has matched so far.
    private static final int OPEN_NAME = 0;   // "<" + part of a name
    private static final int OPEN_SLASH = 1;  // "<name/", expecting ">"
    private static final int OPEN_ATTRS = 2;  // "<name " + attribute section, up to ">"
    private static final int CLOSE_LT = 3;    // "<" inside a block
    private static final int CLOSE_NAME = 4;  // "</" + part of a name
    private static final int CLOSE_SPACE = 5; // "</name" + whitespace, expecting ">"

    private final Sink sink;
    /** Every recognised tag name, lower case: the thinking names first, then the tool names (the options' array, never changed). */
    private final String[] names;
    private final int thinkingNameCount;
    private final long allNames;
    private final long thinkingNames;
    private final long toolNames;
    /** Contract 1.1: a tool open tag also ends a tag-opened thinking block. */
    private final boolean toolEndsThinking;
    /**
     * Contract 1.1: in the thinking-open block, the first thinking open tag before any
     * non-whitespace content is consumed (models often repeat the tag their template wrote).
     */
    private boolean redundantOpenAllowed;

    private boolean inBlock;
    private BlockKind blockKind;
    /** The names whose close tag ends the open block. */
    private long closingNames;

    /** The pending tag candidate; empty when there is none. */
    private final StringBuilder candidate = new StringBuilder(64);
    private int phase;
    private int nameLength;
    private long nameMask;

    // CDATA sections in tool blocks are opaque: a close tag inside one does not count.
    private int cdataOpenMatched;
    private boolean inCdata;
    private int cdataClosingBrackets;

    /** {@code lowerCaseNames}: the options' tag names in lower case, thinking names first (shared, only read). */
    public TagScanner(StreamOptions options, String[] lowerCaseNames, Sink sink) {
        this.sink = sink;
        List<String> thinking = options.thinkingTags();
        List<String> tools = options.toolTags();
        if (thinking.size() + tools.size() > Long.SIZE) {
            throw new IllegalArgumentException("at most " + Long.SIZE + " tag names in all");
        }
        this.names = lowerCaseNames;
        this.thinkingNameCount = thinking.size();
        this.allNames = names.length == Long.SIZE ? -1L : (1L << names.length) - 1;
        this.thinkingNames = (1L << thinkingNameCount) - 1;
        this.toolNames = allNames & ~thinkingNames;
        this.toolEndsThinking = options.toolEndsThinking();
    }

    /** Starts inside a thinking block that any thinking close tag ends ({@code thinking-open}). */
    @Override
    public void enterOpenThinkingBlock() {
        enterBlock(BlockKind.THINKING, thinkingNames);
        redundantOpenAllowed = true;
    }

    @Override
    public boolean inBlock() {
        return inBlock;
    }

    /** Scans one chunk of message text. */
    @Override
    public void scan(String text) {
        int i = 0;
        int end = text.length();
        while (i < end) {
            if (!candidate.isEmpty()) {
                i = continueCandidate(text, i, end);
            } else if (!inBlock) {
                i = scanMessageText(text, i, end);
            } else if (inCdata || cdataOpenMatched > 0) {
                i = scanCdata(text, i, end);
            } else {
                i = scanBlockText(text, i, end);
            }
        }
    }

    /** A pending open-tag candidate becomes plain text (provider-typed thinking arrived). */
    @Override
    public void releaseOpenTagCandidate() {
        if (!inBlock && !candidate.isEmpty()) {
            releaseCandidate();
        }
    }

    /** End of stream: a pending candidate becomes text. The sink is told nothing else. */
    @Override
    public void finish() {
        if (!candidate.isEmpty()) {
            releaseCandidate();
        }
    }

    private int scanMessageText(String text, int from, int end) {
        int lt = text.indexOf('<', from);
        int textEnd = lt < 0 ? end : lt;
        if (textEnd > from) {
            sink.messageText(text, from, textEnd);
        }
        if (lt < 0) {
            return end;
        }
        startCandidate(OPEN_NAME, allNames);
        return lt + 1;
    }

    private int scanBlockText(String text, int from, int end) {
        int lt = text.indexOf('<', from);
        int textEnd = lt < 0 ? end : lt;
        if (textEnd > from) {
            if (redundantOpenAllowed && !isBlank(text, from, textEnd)) {
                redundantOpenAllowed = false;
            }
            sink.blockText(text, from, textEnd);
        }
        if (lt < 0) {
            return end;
        }
        startCandidate(CLOSE_LT, closingNames);
        return lt + 1;
    }

    /** Inside a tool block, after "<!": matching the rest of "<![CDATA[", or inside the section. */
    private int scanCdata(String text, int from, int end) {
        int i = from;
        while (i < end && !inCdata && cdataOpenMatched > 0) {
            if (text.charAt(i) != CDATA_OPEN.charAt(cdataOpenMatched)) {
                cdataOpenMatched = 0; // not CDATA after all: this character is scanned as usual
                break;
            }
            i++;
            if (++cdataOpenMatched == CDATA_OPEN.length()) {
                cdataOpenMatched = 0;
                inCdata = true;
                cdataClosingBrackets = 0;
            }
        }
        while (i < end && inCdata) {
            char c = text.charAt(i++);
            if (c == ']') {
                cdataClosingBrackets++;
            } else {
                if (c == '>' && cdataClosingBrackets >= 2) {
                    inCdata = false;
                }
                cdataClosingBrackets = 0;
            }
        }
        if (i > from) {
            sink.blockText(text, from, i);
        }
        return i;
    }

    private void startCandidate(int startPhase, long mask) {
        candidate.append('<');
        phase = startPhase;
        nameLength = 0;
        nameMask = mask;
    }

    private static final int CONTINUE = 0;
    private static final int COMPLETE = 1;
    private static final int BREAK = 2;

    private int continueCandidate(String text, int from, int end) {
        int i = from;
        while (i < end) {
            char c = text.charAt(i);
            int verdict = phase <= OPEN_ATTRS ? stepOpenTag(c) : stepCloseTag(c);
            if (verdict == BREAK) {
                // The candidate is text; the character that broke it is scanned afresh.
                boolean cdataMayFollow = inBlock && blockKind == BlockKind.TOOL && phase == CLOSE_LT && c == '!';
                releaseCandidate();
                if (cdataMayFollow) {
                    cdataOpenMatched = 1;
                }
                return i;
            }
            candidate.append(c);
            i++;
            if (verdict == COMPLETE) {
                if (phase <= OPEN_ATTRS) {
                    completeOpenTag();
                } else {
                    completeCloseTag();
                }
                return i;
            }
            if (candidate.length() == MAX_TAG_LENGTH) {
                releaseCandidate(); // too long to be a tag: released at this character
                return i;
            }
        }
        return i;
    }

    private int stepOpenTag(char c) {
        switch (phase) {
            case OPEN_NAME:
                if (c == '>' || c == '/' || isWhitespace(c)) {
                    if (completedName() < 0) {
                        return BREAK;
                    }
                    if (c == '>') {
                        return COMPLETE;
                    }
                    phase = c == '/' ? OPEN_SLASH : OPEN_ATTRS;
                    return CONTINUE;
                }
                return matchNameCharacter(c) ? CONTINUE : BREAK;
            case OPEN_SLASH:
                return c == '>' ? COMPLETE : BREAK;
            default: // OPEN_ATTRS: runs to the first '>' and holds no '<'
                return c == '>' ? COMPLETE : c == '<' ? BREAK : CONTINUE;
        }
    }

    private int stepCloseTag(char c) {
        switch (phase) {
            case CLOSE_LT:
                if (c != '/') {
                    long open = openTagsInBlock();
                    if (open == 0) {
                        return BREAK;
                    }
                    // An open tag that means something inside this thinking block (1.1).
                    phase = OPEN_NAME;
                    nameMask = open;
                    return stepOpenTag(c);
                }
                phase = CLOSE_NAME;
                return CONTINUE;
            case CLOSE_NAME:
                if (c == '>' || isWhitespace(c)) {
                    if (completedName() < 0) {
                        return BREAK;
                    }
                    if (c == '>') {
                        return COMPLETE;
                    }
                    phase = CLOSE_SPACE;
                    return CONTINUE;
                }
                return matchNameCharacter(c) ? CONTINUE : BREAK;
            default: // CLOSE_SPACE
                return c == '>' ? COMPLETE : isWhitespace(c) ? CONTINUE : BREAK;
        }
    }

    /** Narrows the candidate names to those with {@code c} (ASCII case-insensitively) next. */
    private boolean matchNameCharacter(char c) {
        char lower = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
        long mask = nameMask;
        long kept = 0;
        while (mask != 0) {
            int n = Long.numberOfTrailingZeros(mask);
            mask &= mask - 1;
            String name = names[n];
            if (name.length() > nameLength && name.charAt(nameLength) == lower) {
                kept |= 1L << n;
            }
        }
        nameMask = kept;
        nameLength++;
        return kept != 0;
    }

    /** The index of the candidate name matched completely so far, or -1. */
    private int completedName() {
        long mask = nameMask;
        while (mask != 0) {
            int n = Long.numberOfTrailingZeros(mask);
            mask &= mask - 1;
            if (names[n].length() == nameLength) {
                return n;
            }
        }
        return -1;
    }

    /** The open tags recognised inside the current block: only in thinking blocks, by the 1.1 rules. */
    private long openTagsInBlock() {
        if (blockKind != BlockKind.THINKING) {
            return 0;
        }
        return (redundantOpenAllowed ? thinkingNames : 0) | (toolEndsThinking ? toolNames : 0);
    }

    private void completeOpenTag() {
        int nameIndex = completedName();
        String name = candidate.substring(1, 1 + nameLength);
        boolean selfClosing = phase == OPEN_SLASH;
        Map<String, String> attributes = Map.of();
        if (phase == OPEN_ATTRS) {
            int sectionEnd = candidate.length() - 1; // before '>'
            int last = sectionEnd - 1;
            while (isWhitespace(candidate.charAt(last))) {
                last--;
            }
            if (candidate.charAt(last) == '/') {
                selfClosing = true;
                sectionEnd = last; // the '/' of a self-closing tag is never part of a value
            }
            attributes = TagAttributes.parse(candidate, 1 + nameLength, sectionEnd);
        }
        BlockKind kind = nameIndex < thinkingNameCount ? BlockKind.THINKING : BlockKind.TOOL;
        if (inBlock) {
            if (kind == BlockKind.THINKING) {
                // The redundant opening tag of the thinking-open block: consumed, unless it is
                // self-closing, which is plain content.
                if (selfClosing) {
                    releaseCandidate();
                } else {
                    candidate.setLength(0);
                }
                redundantOpenAllowed = false;
                return;
            }
            // tool-ends-thinking: the thinking block ends as if its close tag stood here.
            completeCloseTag();
        }
        candidate.setLength(0);
        sink.blockOpened(kind, name, attributes);
        if (selfClosing) {
            sink.blockClosed();
        } else {
            enterBlock(kind, 1L << nameIndex); // closed only by a tag of the same name
        }
    }

    private void completeCloseTag() {
        candidate.setLength(0);
        inBlock = false;
        redundantOpenAllowed = false;
        blockKind = null;
        sink.blockClosed();
    }

    private void enterBlock(BlockKind kind, long closers) {
        inBlock = true;
        blockKind = kind;
        closingNames = closers;
        redundantOpenAllowed = false;
        inCdata = false;
        cdataOpenMatched = 0;
    }

    private void releaseCandidate() {
        if (inBlock) {
            redundantOpenAllowed = false; // the candidate starts with '<': content that is not whitespace
            sink.blockText(candidate, 0, candidate.length());
        } else {
            sink.messageText(candidate, 0, candidate.length());
        }
        candidate.setLength(0);
    }

    private static boolean isBlank(CharSequence text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!isWhitespace(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static boolean isWhitespace(char c) {
        return c == ' ' || c == '\n' || c == '\t' || c == '\r';
    }
}
