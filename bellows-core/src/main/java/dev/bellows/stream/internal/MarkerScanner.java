package dev.bellows.stream.internal;

import dev.bellows.stream.internal.MarkerSet.Marker;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.internal.TagScanner.BlockKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The scanner of every dialect other than {@code bellows}: splits message text into plain
 * text, thinking blocks and tool blocks by the dialect's literal delimiters (case-sensitive,
 * as the models' tokenizers write them), with the same guarantees as the tag scanner.
 *
 * <p>Each state has a set of delimiters it recognises. Plain text runs up to the next
 * character that can start one of them and is handed on as a range of the chunk; only a
 * delimiter candidate (a prefix of a delimiter) is held back. When a candidate breaks, its
 * first character is plain text and the rest is scanned again, so a candidate never costs
 * more than its length twice, and the output cannot depend on where the chunks were cut.
 *
 * <p>States: message text; a thinking block; a tool section (Kimi's, DeepSeek's and
 * MiniMax's wrappers, Mistral's {@code [TOOL_CALLS]}, Llama's {@code <|python_tag|>}), in
 * which calls follow each other with only whitespace and separators between them and any
 * other text ends the section; a tool block, ended by a close delimiter or, for dialects
 * whose calls are bare JSON, where its first JSON object ends; and a harmony header, which
 * decides whether the body after it is thinking, a tool call or message text.
 *
 * <p>Not thread-safe: one scanner per stream.
 */
public final class MarkerScanner implements BlockScanner {

    private static final int MESSAGE = 0;
    private static final int THINKING = 1;
    private static final int SECTION = 2;
    private static final int TOOL = 3;
    private static final int HEADER = 4;
    /** Llama 3: a bare JSON call held until its object says whether it is a call. */
    private static final int HELD = 5;
    /** Harmony: a header whose recipient already made it a tool call, up to its {@code <|message|>}. */
    private static final int TOOL_HEADER = 6;
    /** Mistral from v11: a name after {@code [TOOL_CALLS]}, held until its arguments show it is a call. */
    private static final int CALL_NAME = 7;
    /**
     * Llama 3: a bare call that its start made one ({@link BareCallStart}), a tool block up to
     * where its object ends, or breaks (then it is a malformed call).
     */
    private static final int BARE_CALL = 8;

    private static final int THINK_OPEN = 0;
    private static final int THINK_CLOSE = 1;
    private static final int SECTION_OPEN = 2;
    private static final int SECTION_CLOSE = 3;
    private static final int CALL_OPEN = 4;
    private static final int CALL_CLOSE = 5;
    private static final int SECTION_REPEAT = 6;
    private static final int HEADER_START = 7;
    private static final int HEADER_END = 8;
    private static final int BODY_END = 9;
    /** Kimi: a call opener inside a call ends it and starts the next one. */
    private static final int CALL_REOPEN = 10;

    /** A Mistral name longer than this is not one: it is released as message text. */
    private static final int MAX_CALL_NAME = 256;

    /** A harmony header longer than this is not a header: it is released as message text. */
    private static final int MAX_HEADER = 512;

    private final DialectSpec dialect;
    /** The tools offered (empty: not known), for Llama 3's calls known by their start. */
    private final ParameterSchemas catalog;
    /** The dialect's thinking delimiters, plus the contract's own when {@code bellowsTagsToo}. */
    private final List<DialectSpec.Thinking> thinking;
    private final TagScanner.Sink sink;
    private final boolean toolEndsThinking;
    /** The contract's {@code <tool>} blocks (decoded by its rules) are recognised beside the dialect's calls. */
    private final boolean bellowsTags;

    private final MarkerSet messageSet;
    private final MarkerSet sectionSet;
    private final MarkerSet toolSet;
    private final MarkerSet keptToolSet;
    private final MarkerSet bellowsToolSet;
    /** The open call is a contract {@code <tool>} block. */
    private boolean bellowsCall;
    /** The open call was opened by the dialect's kept form (its delimiters are body text). */
    private boolean keptCall;
    private final MarkerSet headerSet;
    /** Harmony: the header set inside a tool block (its recipient is known): body ends close the call. */
    private final MarkerSet toolHeaderSet;
    /** Harmony: message delimiters plus {@code to=}, which continues the header the prompt began. */
    private final MarkerSet startSet;
    private final Map<Integer, MarkerSet> thinkingSets = new HashMap<>();
    /** A call or section opener ends a thinking block (the option, or the dialect's habit). */
    private final boolean callsEndThinking;

    private int state = MESSAGE;
    /** The open thinking block's delimiters (index into the dialect's list; -1: a harmony channel). */
    private int thinkIndex;
    private boolean inSection;
    /** In a section: a call may start here (after the opener or a separator, not right after a call). */
    private boolean expectCall;
    /** thinking-open: the first thinking opener before non-whitespace content is consumed (1.1). */
    private boolean redundantAllowed;
    /** Whether non-whitespace message text was seen (Llama's bare JSON call must come first). */
    private boolean messageStarted;
    /** Harmony: nothing but whitespace so far, so {@code to=} may continue the prompt's header. */
    private boolean atStart = true;

    /** The section's opener as written, for a section that turns out to hold no call. */
    private String sectionOpener;
    /** Whether a call started in the open section. */
    private boolean sectionHadCall;

    /** Llama 3's held call: its text so far, the checker of its JSON, and what its start says. */
    private final StringBuilder held = new StringBuilder();
    private JsonArgumentScanner heldJson;
    private BareCallStart heldStart;
    /** Mistral's held name (CALL_NAME). */
    private final StringBuilder callName = new StringBuilder();

    /** Harmony: where the recipient's name starts in the header (-1: not found yet), and how far it was searched. */
    private int recipientStart = -1;
    private int recipientScanned;

    private final StringBuilder candidate = new StringBuilder(32);
    private MarkerSet candidateSet;
    private long mask;
    /**
     * The candidate is {@code {} + whitespace + a prefix of {@code "name"} (Llama's bare call in
     * the middle of text), not a delimiter of {@link #candidateSet}; {@link #nameMatched} counts
     * the characters of {@code "name"} matched.
     */
    private boolean nameKeyCandidate;
    private int nameMatched;
    private static final String NAME_KEY = "\"name\"";

    /** The next character is plain text even if it could start a delimiter (it broke a candidate). */
    private boolean forcePlain;

    // The end of a bare JSON call: its first object, strings and nesting tracked.
    private boolean jsonStarted;
    private int depth;
    private boolean inString;
    private boolean escape;

    private final StringBuilder header = new StringBuilder();
    /**
     * Whitespace after a call in a section: dropped if another call or the section's close
     * follows, message text if the section ends because text that is not a call follows.
     */
    private final StringBuilder sectionWhitespace = new StringBuilder();

    public MarkerScanner(DialectSpec dialect, ParameterSchemas catalog, StreamOptions options, TagScanner.Sink sink) {
        this.dialect = dialect;
        this.catalog = catalog;
        this.sink = sink;
        this.toolEndsThinking = options.toolEndsThinking();
        List<DialectSpec.Thinking> allThinking = new ArrayList<>(dialect.thinking);
        if (options.bellowsTagsToo()) {
            // An agent's prompt teaches the contract's tags; a model may follow it or its habits.
            allThinking.add(new DialectSpec.Thinking("thinking", "<thinking>", "</thinking>"));
        }
        this.thinking = List.copyOf(allThinking);
        this.bellowsTags = options.bellowsTagsToo();
        this.callsEndThinking = toolEndsThinking || dialect.callsEndThinking;

        List<Marker> message = new ArrayList<>();
        for (int i = 0; i < thinking.size(); i++) {
            message.add(new Marker(thinking.get(i).open(), THINK_OPEN, i));
        }
        addCallStarts(message);
        DialectSpec.Headers headers = dialect.headers;
        if (headers != null) {
            headers.starts().forEach(s -> message.add(new Marker(s, HEADER_START, 0)));
            headers.bodyEnds().forEach(s -> message.add(new Marker(s, BODY_END, 0)));
        }
        this.messageSet = new MarkerSet(message);
        if (dialect.nameKeyStartsCall) {
            messageSet.first.set('{');
        }
        List<Marker> start = new ArrayList<>(message);
        if (headers != null) {
            start.add(new Marker("to=", HEADER_START, 1));
        }
        this.startSet = new MarkerSet(start);

        List<Marker> section = new ArrayList<>();
        if (dialect.sectionClose != null) {
            section.add(new Marker(dialect.sectionClose, SECTION_CLOSE, 0));
        }
        dialect.sectionCloseVariants.forEach(v -> section.add(new Marker(v, SECTION_CLOSE, 0)));
        if (dialect.sectionRepeat != null) {
            section.add(new Marker(dialect.sectionRepeat, SECTION_REPEAT, 0));
        }
        dialect.callOpen.forEach(s -> section.add(new Marker(s, CALL_OPEN, 0)));
        this.sectionSet = new MarkerSet(section);

        List<Marker> tool = new ArrayList<>();
        dialect.callClose.forEach(s -> tool.add(new Marker(s, CALL_CLOSE, 0)));
        if (dialect.looseCalls) {
            dialect.callOpen.forEach(s -> tool.add(new Marker(s, CALL_REOPEN, 0)));
            if (dialect.sectionClose != null) {
                tool.add(new Marker(dialect.sectionClose, SECTION_CLOSE, 0));
            }
            dialect.sectionCloseVariants.forEach(v -> tool.add(new Marker(v, SECTION_CLOSE, 0)));
        }
        if (headers != null) {
            headers.bodyEnds().forEach(s -> tool.add(new Marker(s, CALL_CLOSE, 0)));
            headers.starts().forEach(s -> tool.add(new Marker(s, HEADER_START, 0)));
        }
        this.toolSet = new MarkerSet(tool);
        List<Marker> kept = new ArrayList<>();
        if (dialect.keptCallClose != null) {
            kept.add(new Marker(dialect.keptCallClose, CALL_CLOSE, 1));
        }
        this.keptToolSet = new MarkerSet(kept);
        this.bellowsToolSet = new MarkerSet(List.of(new Marker("</tool>", CALL_CLOSE, 2)));

        List<Marker> head = new ArrayList<>();
        if (headers != null) {
            headers.starts().forEach(s -> head.add(new Marker(s, HEADER_START, 0)));
            head.add(new Marker(headers.end(), HEADER_END, 0));
        }
        this.headerSet = new MarkerSet(head);
        List<Marker> toolHead = new ArrayList<>(head);
        if (headers != null) {
            headers.bodyEnds().forEach(s -> toolHead.add(new Marker(s, CALL_CLOSE, 0)));
        }
        this.toolHeaderSet = new MarkerSet(toolHead);
    }

    /** Where a tool call can begin: the section opener, or the call openers when calls stand alone. */
    private void addCallStarts(List<Marker> into) {
        if (bellowsTags) {
            into.add(new Marker("<tool>", CALL_OPEN, 2));
        }
        if (dialect.sectionOpen != null) {
            into.add(new Marker(dialect.sectionOpen, SECTION_OPEN, 0));
            dialect.sectionOpenVariants.forEach(v -> into.add(new Marker(v, SECTION_OPEN, 0)));
            if (dialect.looseCalls) { // Kimi also writes calls without their section
                dialect.callOpen.forEach(s -> into.add(new Marker(s, CALL_OPEN, 0)));
            }
        } else {
            dialect.callOpen.forEach(s -> into.add(new Marker(s, CALL_OPEN, 0)));
            if (dialect.keptCallOpen != null) {
                into.add(new Marker(dialect.keptCallOpen, CALL_OPEN, 1));
            }
        }
    }

    private MarkerSet thinkingSet() {
        int key = (thinkIndex + 1) * 4 + (redundantAllowed ? 1 : 0) + (callsEndThinking ? 2 : 0);
        MarkerSet set = thinkingSets.get(key);
        if (set == null) {
            List<Marker> list = new ArrayList<>();
            if (thinkIndex >= 0) {
                list.add(new Marker(thinking.get(thinkIndex).close(), THINK_CLOSE, thinkIndex));
            } else if (dialect.headers != null) {
                dialect.headers.bodyEnds().forEach(s -> list.add(new Marker(s, THINK_CLOSE, 0)));
                dialect.headers.starts().forEach(s -> list.add(new Marker(s, HEADER_START, 0)));
            }
            if (redundantAllowed) {
                for (int i = 0; i < thinking.size(); i++) {
                    list.add(new Marker(thinking.get(i).open(), THINK_OPEN, i));
                }
            }
            if (callsEndThinking) {
                addCallStarts(list);
            }
            set = new MarkerSet(list);
            thinkingSets.put(key, set);
        }
        return set;
    }

    // ---- BlockScanner --------------------------------------------------------------------

    @Override
    public void enterOpenThinkingBlock() {
        state = THINKING;
        thinkIndex = dialect.thinking.isEmpty() ? -1 : 0; // harmony: its channel's delimiters
        redundantAllowed = !thinking.isEmpty();
    }

    @Override
    public boolean inBlock() {
        return state == THINKING || state == TOOL || state == TOOL_HEADER || state == BARE_CALL;
    }

    @Override
    public void scan(String text) {
        run(text, 0, text.length());
    }

    @Override
    public void releaseOpenTagCandidate() {
        if (!inBlock()) {
            while (!candidate.isEmpty()) {
                release();
            }
            releaseHeldText();
        }
    }

    @Override
    public void finish() {
        while (!candidate.isEmpty()) {
            release();
        }
        releaseHeldText();
        if (state == HEADER) { // an unfinished header is what the model wrote: message text
            state = MESSAGE;
            String text = header.toString();
            header.setLength(0);
            messageText(text, 0, text.length());
        }
        if (state == SECTION && !sectionHadCall && dialect.emptySectionIsText) {
            String text = sectionOpener + sectionWhitespace; // cut off before any call: it was text
            closeSection();
            messageText(text, 0, text.length());
        }
    }

    /**
     * A held call or name that cannot be one any more (the stream ended, provider thinking came) is
     * message text, as the model wrote it; it is not scanned again, so holding costs nothing twice.
     */
    private void releaseHeldText() {
        if (state == HELD) {
            String text = held.toString();
            held.setLength(0);
            heldJson = null;
            heldStart = null;
            closeSection();
            messageText(text, 0, text.length());
        } else if (state == CALL_NAME) {
            String text = sectionWhitespace.toString() + callName;
            callName.setLength(0);
            closeSection();
            messageText(text, 0, text.length());
        }
    }

    // ---- scanning ------------------------------------------------------------------------

    private void run(CharSequence text, int from, int end) {
        int i = from;
        while (i < end) {
            if (!candidate.isEmpty()) {
                i = continueCandidate(text, i, end);
                continue;
            }
            i = switch (state) {
                case MESSAGE -> scanMessage(text, i, end);
                case THINKING -> redundantAllowed ? scanThinkingStart(text, i, end) : scanRun(text, i, end, thinkingSet());
                case SECTION -> scanSection(text, i, end);
                case TOOL -> bellowsCall ? scanRun(text, i, end, bellowsToolSet)
                        : dialect.jsonDelimited ? scanJsonBody(text, i, end)
                        : scanRun(text, i, end, keptCall ? keptToolSet : toolSet);
                case HELD -> scanHeld(text, i, end);
                case BARE_CALL -> scanBareCall(text, i, end);
                case CALL_NAME -> scanCallName(text, i, end);
                case TOOL_HEADER -> scanRun(text, i, end, toolHeaderSet);
                default -> scanRun(text, i, end, headerSet);
            };
        }
    }

    private int scanMessage(CharSequence text, int i, int end) {
        if (dialect.leadingJsonCall && !messageStarted && !forcePlain) {
            char c = text.charAt(i);
            if (c == '{') { // Llama 3 answers a call with nothing but its JSON
                inSection = true;
                if (dialect.heldJsonCalls) {
                    startHeld();
                } else {
                    openCall();
                }
                return i;
            }
            if (TagScanner.isWhitespace(c)) {
                messageText(text, i, i + 1);
                return i + 1;
            }
        }
        if (atStart && dialect.headers != null) {
            if (messageStarted) {
                atStart = false;
            } else {
                return scanRun(text, i, end, startSet);
            }
        }
        return scanRun(text, i, end, messageSet);
    }

    /**
     * The start of the thinking-open block, while a repeated opener may still be consumed: only
     * whitespace keeps that chance, so the delimiters recognised change at the first other character.
     */
    private int scanThinkingStart(CharSequence text, int i, int end) {
        int j = i;
        while (j < end && TagScanner.isWhitespace(text.charAt(j))) {
            j++;
        }
        if (j > i) {
            plain(text, i, j);
            return j;
        }
        MarkerSet set = thinkingSet();
        if (!forcePlain && set.first.get(text.charAt(i))) {
            return scanRun(text, i, end, set);
        }
        redundantAllowed = false; // content that is not whitespace: from here on, an opener is content
        return scanRun(text, i, end, thinkingSet());
    }

    /** Plain text up to the next possible delimiter, which starts a candidate. */
    private int scanRun(CharSequence text, int i, int end, MarkerSet set) {
        int j = i;
        if (forcePlain) {
            forcePlain = false;
            j++;
        }
        while (j < end && !set.first.get(text.charAt(j))) {
            j++;
        }
        if (j > i) {
            int before = state;
            plain(text, i, j);
            if (state != before) { // an overlong header became message text: rescan with its delimiters
                return j;
            }
            if (set == startSet && messageStarted) { // text came first: to= is no header any more
                return j;
            }
        }
        if (j == end) {
            return end;
        }
        if (state == HEADER) {
            recipientEnds(true); // a '<' ends the recipient's name (harmony)
            if (state != HEADER) { // the header made the message a call: scan on in its set
                return j;
            }
        }
        if (state == TOOL) { // a name may end where a delimiter may begin (GLM's <arg_key>): known now
            sink.delimiterAhead(text.charAt(j));
        }
        if (set == messageSet && dialect.nameKeyStartsCall && text.charAt(j) == '{') {
            nameKeyCandidate = true;
            nameMatched = 0;
            candidate.append('{');
            return j + 1;
        }
        candidateSet = set;
        mask = set.all;
        int verdict = step(text.charAt(j));
        if (verdict >= 0) {
            complete(set.markers[verdict]);
        }
        return j + 1;
    }

    /** One character between calls of a section. */
    private int scanSection(CharSequence text, int i, int end) {
        char c = text.charAt(i);
        boolean plainOnly = forcePlain;
        forcePlain = false;
        if (!plainOnly && sectionSet.first.get(c)) {
            return scanRun(text, i, end, sectionSet);
        }
        if (TagScanner.isWhitespace(c)) {
            sectionWhitespace.append(c);
            return i + 1;
        }
        if (dialect.separators.indexOf(c) >= 0) {
            expectCall = true;
            sectionWhitespace.setLength(0);
            return i + 1;
        }
        if (dialect.sectionCloseChars.indexOf(c) >= 0) {
            closeSection();
            return i + 1;
        }
        if (expectCall && dialect.keptStarters.indexOf(c) >= 0) {
            if (dialect.heldJsonCalls) {
                startHeld();
            } else {
                openCall(); // the character is the first of the body
            }
            return i;
        }
        if (expectCall && dialect.identifierStartsCall && (Character.isLetter(c) || c == '_')) {
            callName.setLength(0);
            state = CALL_NAME; // a call only if its arguments follow the name
            return i;
        }
        if (dialect.sectionDropsNoise) {
            sectionWhitespace.setLength(0);
            return i + 1; // Kimi: what is not a call between the section's markers is dropped
        }
        // Anything else is not a call: the section is over and this is message text again,
        // with the whitespace before it (and the opener, when it opened nothing and was text).
        String held = (!sectionHadCall && dialect.emptySectionIsText ? sectionOpener : "") + sectionWhitespace;
        closeSection();
        if (!held.isEmpty()) {
            messageText(held, 0, held.length());
        }
        forcePlain = plainOnly;
        return i;
    }

    /**
     * Llama 3's bare call: held until its start makes it a call ({@code {"name": "NAME",
     * "parameters"}: a tool block from then on), or until its JSON object is complete (a call
     * when it has a name and parameters, text otherwise) or broken (text up to the character
     * that broke it, which is scanned again: it may start the next call).
     */
    private int scanHeld(CharSequence text, int i, int end) {
        forcePlain = false;
        int limit = end;
        if (!heldStart.isDecided()) { // a few characters: the start is decided within its name's length
            limit = i;
            while (limit < end && !heldStart.isDecided()) {
                heldStart.accept(text.charAt(limit++));
            }
        }
        int stop = heldJson.feedUntilDone(text, i, limit);
        if (heldJson.isBroken()) {
            held.append(text, i, stop - 1);
            String released = held.toString();
            held.setLength(0);
            heldJson = null;
            closeSection();
            messageText(released, 0, released.length());
            return stop - 1;
        }
        held.append(text, i, stop);
        if (heldStart.isCall()) {
            String start = held.toString(); // the name was read: a call from here, its name announced now
            held.setLength(0);
            heldStart = null;
            inSection = true;
            openCall();
            state = BARE_CALL;
            sink.blockText(start, 0, start.length());
            return stop;
        }
        if (heldJson.isComplete()) {
            String call = held.toString();
            held.setLength(0);
            heldJson = null;
            if (isBareCall(call)) {
                inSection = true;
                openCall();
                sink.blockText(call, 0, call.length());
                closeCall();
            } else {
                closeSection();
                messageText(call, 0, call.length());
            }
        }
        return stop;
    }

    private void startHeld() {
        held.setLength(0);
        heldJson = JsonArgumentScanner.forDocument();
        heldStart = new BareCallStart(catalog);
        state = HELD;
    }

    /**
     * A bare call known by its start, up to where its object ends (the block closes and is
     * decoded) or breaks: then it is a malformed call, closed before the character that broke it,
     * which is scanned again as message text (it may start the next call).
     */
    private int scanBareCall(CharSequence text, int i, int end) {
        forcePlain = false;
        int stop = heldJson.feedUntilDone(text, i, end);
        if (heldJson.isBroken()) {
            sink.blockText(text, i, stop - 1);
            heldJson = null;
            sink.blockBroken(text.charAt(stop - 1));
            closeSection();
            return stop - 1;
        }
        sink.blockText(text, i, stop);
        if (heldJson.isComplete()) {
            heldJson = null;
            closeCall();
        }
        return stop;
    }

    /** Whether a complete JSON object is a call as the peers read one: a name, and parameters or arguments. */
    private static boolean isBareCall(String json) {
        try {
            tools.jackson.databind.JsonNode node = StrictJson.read(json);
            tools.jackson.databind.JsonNode name = node.get("name");
            return name != null && name.isString() && !name.stringValue(null).isEmpty()
                    && (node.has("parameters") || node.has("arguments"));
        } catch (SyntaxError checkedAlready) {
            return false;
        }
    }

    /**
     * Mistral's {@code NAME[ARGS]{...}}: the name is held until the character after it shows
     * whether it is a call ({@code [} or {@code {}) or text (anything else: the section ends).
     */
    private int scanCallName(CharSequence text, int i, int end) {
        int j = i;
        while (j < end) {
            char c = text.charAt(j);
            if (Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.') {
                if (callName.length() >= MAX_CALL_NAME) {
                    break;
                }
                callName.append(c);
                j++;
                continue;
            }
            if ((c == '[' || c == '{') && callName.length() < MAX_CALL_NAME) {
                String name = callName.toString();
                callName.setLength(0);
                openCall();
                sink.blockText(name, 0, name.length());
                return j; // the bracket is the body's, scanned as such
            }
            break;
        }
        if (j == end) {
            return end;
        }
        String released = sectionWhitespace.toString() + callName; // not a call: it was text
        callName.setLength(0);
        closeSection();
        messageText(released, 0, released.length());
        return j;
    }

    /** A bare JSON call ends where its first object ends. */
    private int scanJsonBody(CharSequence text, int i, int end) {
        forcePlain = false;
        int j = i;
        boolean ended = false;
        while (j < end && !ended) {
            ended = track(text.charAt(j));
            j++;
        }
        sink.blockText(text, i, j);
        if (ended) {
            closeCall();
        }
        return j;
    }

    private boolean track(char c) {
        if (!jsonStarted) {
            if (c == '{') {
                jsonStarted = true;
                depth = 1;
            }
            return false;
        }
        if (inString) {
            if (escape) {
                escape = false;
            } else if (c == '\\') {
                escape = true;
            } else if (c == '"') {
                inString = false;
            }
            return false;
        }
        switch (c) {
            case '"' -> inString = true;
            case '{', '[' -> depth++;
            case '}', ']' -> {
                return --depth == 0;
            }
            default -> { }
        }
        return false;
    }

    private void plain(CharSequence text, int from, int to) {
        switch (state) {
            case MESSAGE -> messageText(text, from, to);
            case THINKING -> {
                if (redundantAllowed && !isBlank(text, from, to)) {
                    redundantAllowed = false;
                }
                sink.blockText(text, from, to);
            }
            case TOOL -> sink.blockText(text, from, to);
            case HEADER -> {
                header.append(text, from, to);
                recipientEnds(false);
                if (state == HEADER && header.length() > MAX_HEADER) {
                    state = MESSAGE;
                    String released = header.toString();
                    header.setLength(0);
                    messageText(released, 0, released.length());
                }
            }
            case TOOL_HEADER -> {
                header.append(text, from, to);
                if (header.length() > MAX_HEADER) { // no <|message|> came: what follows the recipient is the body
                    String body = header.substring(recipientStart);
                    header.setLength(0);
                    state = TOOL;
                    sink.blockText(body, 0, body.length());
                }
            }
            default -> throw new IllegalStateException("plain text in state " + state);
        }
    }

    private void messageText(CharSequence text, int from, int to) {
        if (!messageStarted && !isBlank(text, from, to)) {
            messageStarted = true;
        }
        sink.messageText(text, from, to);
    }

    /**
     * Harmony: whether the header's recipient name just ended (at whitespace, or at a {@code <}
     * when {@code lessThan}); a recipient that makes the message a call opens the tool block at
     * once, so its name is announced in the chunk where it ends, not at {@code <|message|>}.
     */
    private void recipientEnds(boolean lessThan) {
        while (true) {
            if (recipientStart < 0) {
                int at = header.indexOf("to=", Math.max(0, recipientScanned - 2));
                if (at < 0) {
                    recipientScanned = header.length();
                    return;
                }
                recipientStart = at + 3;
                recipientScanned = recipientStart;
            }
            int end = recipientScanned;
            while (end < header.length() && !TagScanner.isWhitespace(header.charAt(end))) {
                end++;
            }
            if (end == recipientStart && end < header.length()) { // "to= name": the word starts later
                recipientStart++;
                recipientScanned = recipientStart;
                continue;
            }
            if (end == header.length() && !lessThan) {
                recipientScanned = end;
                return; // the name goes on
            }
            String recipient = header.substring(recipientStart, end);
            if (HarmonyHeader.isCall(recipient)) {
                openCall(HarmonyHeader.attributes(HarmonyHeader.channel(header), recipient));
                state = TOOL_HEADER;
                return;
            }
            recipientStart = -1; // to=assistant: not a call; another recipient may follow
            recipientScanned = end;
            if (end == header.length()) {
                return;
            }
        }
    }

    // ---- candidates ----------------------------------------------------------------------

    private static final int BREAK = -2;
    private static final int MORE = -1;

    private int continueCandidate(CharSequence text, int i, int end) {
        if (nameKeyCandidate) {
            return continueNameKey(text, i, end);
        }
        while (i < end) {
            int verdict = step(text.charAt(i));
            if (verdict == BREAK) {
                release();
                return i; // the breaking character is scanned afresh
            }
            i++;
            if (verdict >= 0) {
                complete(candidateSet.markers[verdict]);
                return i;
            }
        }
        return i;
    }

    /** {@code {}, whitespace, then exactly {@code "name"}: a bare JSON call starts, its start kept as body. */
    private int continueNameKey(CharSequence text, int i, int end) {
        while (i < end) {
            char c = text.charAt(i);
            boolean fits = nameMatched == 0 && TagScanner.isWhitespace(c) && candidate.length() < TagScanner.MAX_TAG_LENGTH
                    || NAME_KEY.charAt(nameMatched) == c;
            if (!fits) {
                release();
                return i;
            }
            candidate.append(c);
            i++;
            if (!TagScanner.isWhitespace(c) && ++nameMatched == NAME_KEY.length()) {
                String start = candidate.toString();
                candidate.setLength(0);
                nameKeyCandidate = false;
                inSection = true;
                if (dialect.heldJsonCalls) {
                    startHeld();
                    int stop = scanHeld(start, 0, start.length());
                    if (stop < start.length()) { // cannot happen: a '{' and "name" never break the JSON
                        throw new IllegalStateException("held call broke in its own start");
                    }
                } else {
                    openCall();
                    scanJsonBody(start, 0, start.length());
                }
                return i;
            }
        }
        return i;
    }

    /** Narrows the candidate to the delimiters that continue with {@code c}. */
    private int step(char c) {
        int length = candidate.length();
        long kept = 0;
        long m = mask;
        int completed = MORE;
        while (m != 0) {
            int n = Long.numberOfTrailingZeros(m);
            m &= m - 1;
            String text = candidateSet.markers[n].text();
            if (text.length() > length && text.charAt(length) == c) {
                kept |= 1L << n;
                if (text.length() == length + 1) {
                    completed = n;
                }
            }
        }
        if (kept == 0) {
            return BREAK;
        }
        mask = kept;
        candidate.append(c);
        if (completed >= 0) {
            candidate.setLength(0);
        }
        return completed;
    }

    /** The candidate is not a delimiter: its first character is plain, the rest is scanned again. */
    private void release() {
        String held = candidate.toString();
        candidate.setLength(0);
        nameKeyCandidate = false;
        forcePlain = true;
        run(held, 0, held.length());
    }

    // ---- delimiters ----------------------------------------------------------------------

    private void complete(Marker marker) {
        switch (marker.action()) {
            case THINK_OPEN -> {
                if (state == THINKING) { // the redundant opener of the thinking-open block
                    redundantAllowed = false;
                    return;
                }
                thinkIndex = marker.index();
                redundantAllowed = false;
                sink.blockOpened(BlockKind.THINKING, thinking.get(thinkIndex).name(), Map.of());
                state = THINKING;
            }
            case THINK_CLOSE -> {
                sink.blockClosed();
                state = MESSAGE;
            }
            case SECTION_OPEN -> {
                endThinkingForTool();
                state = SECTION;
                inSection = true;
                expectCall = true;
                sectionOpener = marker.text();
                sectionHadCall = false;
            }
            case SECTION_REPEAT -> {
                expectCall = true;
                sectionWhitespace.setLength(0);
            }
            case SECTION_CLOSE -> {
                if (state == TOOL) { // Kimi: the section's end also ends a call left open
                    closeCall();
                }
                if (!sectionHadCall && dialect.emptySectionIsText) {
                    String text = sectionOpener + sectionWhitespace + marker.text(); // it held no call: text
                    closeSection();
                    messageText(text, 0, text.length());
                } else {
                    closeSection();
                }
            }
            case CALL_REOPEN -> { // Kimi: the next call begins without the previous one's end
                closeCall();
                openCall();
            }
            case CALL_OPEN -> {
                endThinkingForTool();
                if (marker.index() == 2) { // the contract's <tool>: its own body rules
                    sink.toolFormat(JsonOrXmlBody.INSTANCE);
                    openCall(Map.of(), "tool");
                    bellowsCall = true;
                    return;
                }
                openCall();
                if (marker.index() == 1) { // the kept form: its opener is the start of the body
                    keptCall = true;
                    sink.blockText(marker.text(), 0, marker.text().length());
                }
            }
            case CALL_CLOSE -> {
                if (keptCall) {
                    sink.blockText(marker.text(), 0, marker.text().length());
                }
                closeCall();
            }
            case HEADER_START -> {
                atStart = false;
                if (state == TOOL_HEADER && !marker.text().equals(dialect.headers.starts().get(0))) {
                    header.append(marker.text()); // <|channel|> in a call's header
                    return;
                }
                if (state == THINKING || state == TOOL || state == TOOL_HEADER) {
                    sink.blockClosed(); // <|start|>: the next message begins, the last one ended
                }
                if (state != HEADER) {
                    header.setLength(0);
                    recipientStart = -1;
                    recipientScanned = 0;
                }
                inSection = false;
                state = HEADER;
                header.append(marker.text());
                if (marker.index() == 1) { // "to=" at the start: the prompt's <|start|>assistant began this header
                    recipientEnds(false);
                }
            }
            case HEADER_END -> {
                if (state == TOOL_HEADER) {
                    header.setLength(0);
                    state = TOOL;
                } else {
                    endHeader();
                }
            }
            default -> { } // BODY_END in message text: the end of a harmony message, dropped
        }
    }

    /** tool-ends-thinking: the thinking block ends as if its close delimiter stood here. */
    private void endThinkingForTool() {
        if (state == THINKING) {
            sink.blockClosed();
            redundantAllowed = false;
            state = MESSAGE;
        }
    }

    private void openCall() {
        openCall(Map.of(), dialect.callName);
    }

    private void openCall(Map<String, String> attributes) {
        openCall(attributes, dialect.callName);
    }

    private void openCall(Map<String, String> attributes, String blockName) {
        sectionWhitespace.setLength(0);
        sectionHadCall = true;
        keptCall = false;
        bellowsCall = false;
        sink.blockOpened(BlockKind.TOOL, blockName, attributes);
        state = TOOL;
        jsonStarted = false;
        depth = 0;
        inString = false;
        escape = false;
    }

    private void closeCall() {
        sink.blockClosed();
        state = inSection ? SECTION : MESSAGE;
        expectCall = false;
    }

    private void closeSection() {
        sectionWhitespace.setLength(0);
        state = MESSAGE;
        inSection = false;
        expectCall = false;
    }

    /**
     * A harmony header is complete: a recipient makes the body a tool call, the {@code analysis}
     * channel makes it thinking, anything else (final, commentary) is message text.
     */
    private void endHeader() {
        HarmonyHeader parsed = HarmonyHeader.parse(header);
        header.setLength(0);
        recipientStart = -1;
        recipientScanned = 0;
        if (parsed.recipient() != null) {
            openCall(parsed.attributes());
        } else if (parsed.isAnalysis()) {
            thinkIndex = -1;
            redundantAllowed = false;
            sink.blockOpened(BlockKind.THINKING, "analysis", Map.of());
            state = THINKING;
        } else {
            state = MESSAGE;
        }
    }

    private static boolean isBlank(CharSequence text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!TagScanner.isWhitespace(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
