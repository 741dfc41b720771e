package dev.bellows.stream.internal;

import dev.bellows.stream.Dialect;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The rules of one dialect (see {@link Dialect}, its public name): the delimiters of thinking
 * blocks and tool blocks, and the format of a tool block's body. The stream processor has one
 * scanner design for all of them: {@code bellows} (the default) is the contract's XML-like
 * tags, scanned by the tag scanner; every other dialect is a set of literal delimiters for the
 * marker scanner plus a body format. Nothing else differs between dialects. Immutable; every
 * dialect is made once, here.
 */
public final class DialectSpec {

    /** A thinking block: its display name and its literal delimiters. */
    record Thinking(String name, String open, String close) {
    }

    /** Harmony-style headers: a header starts at one of {@code starts} and ends at {@code end}. */
    record Headers(List<String> starts, String end, List<String> bodyEnds) {
    }

    private final String name;
    final List<Thinking> thinking;
    /** Opens a tool section that holds calls (null: calls stand alone in the message). */
    final String sectionOpen;
    /** Closes the section (null: only text that is not a call ends it). */
    final String sectionClose;
    /** Other spellings of the section delimiters that models also write (Kimi's singular form). */
    final List<String> sectionOpenVariants;
    final List<String> sectionCloseVariants;
    /** Inside a section, starts the next call again (Mistral's repeated [TOOL_CALLS]). */
    final String sectionRepeat;
    /** Characters between calls in a section that are dropped and let another call start. */
    final String separators;
    /** Characters that close the section, dropped. */
    final String sectionCloseChars;
    final String callName;
    final List<String> callOpen;
    final List<String> callClose;
    /**
     * A second form of call whose delimiters belong to its body (Qwen3-Coder's bare
     * {@code <function=...>...</function>} without {@code <tool_call>}); null if none.
     */
    final String keptCallOpen;
    final String keptCallClose;
    /** Characters that start a call's body where a call may start in a section (kept in the body). */
    final String keptStarters;
    /** Whether identifier characters start a call's body too (Mistral's NAME[ARGS]{...}). */
    final boolean identifierStartsCall;
    /** A call without a close delimiter ends where its first JSON object ends. */
    final boolean jsonDelimited;
    /** A '{' as the first non-whitespace character of the answer opens a section and a call (Llama 3). */
    final boolean leadingJsonCall;
    /** {@code {"name"} (whitespace allowed after the brace) anywhere in message text starts a bare JSON call. */
    final boolean nameKeyStartsCall;
    final Headers headers;
    final ToolBodyFormat body;
    /**
     * A bare JSON call (Llama 3) that starts {@code {"name": "A TOOL", "parameters"} is a call
     * from there on (a malformed one if its JSON then breaks); any other object is held until it
     * is complete and is a call (a name and parameters), and else (invalid JSON, a missing key,
     * an object cut off) stays text.
     */
    final boolean heldJsonCalls;
    /** A section in which no call starts is text, its opener included (DeepSeek, MiniMax). */
    final boolean emptySectionIsText;
    /** Text in a section that is not a call is dropped, and does not end the section (Kimi). */
    final boolean sectionDropsNoise;
    /** The call opener starts a call outside a section too, and ends an open call (Kimi). */
    final boolean looseCalls;
    /** A section or call opener ends a thinking block whatever the options (Kimi). */
    final boolean callsEndThinking;

    private DialectSpec(Builder b) {
        this.name = b.name;
        this.thinking = List.copyOf(b.thinking);
        this.sectionOpen = b.sectionOpen;
        this.sectionClose = b.sectionClose;
        this.sectionOpenVariants = List.copyOf(b.sectionOpenVariants);
        this.sectionCloseVariants = List.copyOf(b.sectionCloseVariants);
        this.sectionRepeat = b.sectionRepeat;
        this.separators = b.separators;
        this.sectionCloseChars = b.sectionCloseChars;
        this.callName = b.callName;
        this.callOpen = List.copyOf(b.callOpen);
        this.callClose = List.copyOf(b.callClose);
        this.keptCallOpen = b.keptCallOpen;
        this.keptCallClose = b.keptCallClose;
        this.keptStarters = b.keptStarters;
        this.identifierStartsCall = b.identifierStartsCall;
        this.jsonDelimited = b.jsonDelimited;
        this.leadingJsonCall = b.leadingJsonCall;
        this.nameKeyStartsCall = b.nameKeyStartsCall;
        this.headers = b.headers;
        this.body = Objects.requireNonNull(b.body, "body");
        this.heldJsonCalls = b.heldJsonCalls;
        this.emptySectionIsText = b.emptySectionIsText;
        this.sectionDropsNoise = b.sectionDropsNoise;
        this.looseCalls = b.looseCalls;
        this.callsEndThinking = b.callsEndThinking;
    }

    /** The default dialect: the stream contract's tags ({@code <thinking>}, {@code <tool>}, ...). */
    private static final DialectSpec BELLOWS = new Builder("bellows").body(JsonOrXmlBody.INSTANCE).build();

    /** Every dialect by name, in the documented order; filled once here and never changed. */
    private static final Map<String, DialectSpec> ALL = registry();

    private static Map<String, DialectSpec> registry() {
        Map<String, DialectSpec> all = new LinkedHashMap<>();
        Consumer<DialectSpec> register = d -> all.put(d.name, d);
        register.accept(BELLOWS);
        register.accept(new Builder("hermes").thinking("think", "<think>", "</think>")
                .calls("tool_call", List.of("<tool_call>"), List.of("</tool_call>"))
                .body(JsonOrXmlBody.INSTANCE).build());
        register.accept(new Builder("qwen3_coder").thinking("think", "<think>", "</think>")
                .calls("tool_call", List.of("<tool_call>"), List.of("</tool_call>"))
                .keptCall("<function=", "</function>")
                .body(new Qwen3CoderBody()).build());
        register.accept(new Builder("llama3_json")
                .section("<|python_tag|>", null).separators(";").keptStarters("{").jsonDelimited()
                .leadingJsonCall().nameKeyStartsCall().heldJsonCalls().calls("tool_call", List.of(), List.of())
                .body(JsonOrXmlBody.BARE_JSON).build());
        register.accept(new Builder("mistral").thinking("think", "[THINK]", "[/THINK]")
                .section("[TOOL_CALLS]", null).sectionRepeat("[TOOL_CALLS]").separators("[,").sectionCloseChars("]")
                .keptStarters("{").identifierStartsCall().jsonDelimited()
                .calls("tool_call", List.of(), List.of())
                .body(new MistralBody()).build());
        register.accept(new Builder("deepseek_v3").thinking("think", "<think>", "</think>")
                .section("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
                .calls("tool_call", List.of("<｜tool▁call▁begin｜>"), List.of("<｜tool▁call▁end｜>"))
                .emptySectionIsText().body(new DeepSeekBody()).build());
        // Kimi K2 Thinking writes <think> (its template, llama.cpp's tests); some Kimi builds write ◁think▷.
        register.accept(new Builder("kimi_k2").thinking("think", "<think>", "</think>")
                .thinking("think", "◁think▷", "◁/think▷")
                .section("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>")
                .sectionVariant("<|tool_call_section_begin|>", "<|tool_call_section_end|>")
                .calls("tool_call", List.of("<|tool_call_begin|>"), List.of("<|tool_call_end|>"))
                .kimiSections().body(new KimiK2Body()).build());
        register.accept(new Builder("glm45").thinking("think", "<think>", "</think>")
                .calls("tool_call", List.of("<tool_call>"), List.of("</tool_call>"))
                .body(new Glm45Body()).build());
        register.accept(new Builder("minimax_m2").thinking("think", "<think>", "</think>")
                .section("<minimax:tool_call>", "</minimax:tool_call>")
                .calls("invoke", List.of("<invoke"), List.of("</invoke>"))
                .emptySectionIsText().body(new MinimaxBody()).build());
        register.accept(new Builder("harmony")
                .headers(new Headers(List.of("<|start|>", "<|channel|>"), "<|message|>",
                        List.of("<|end|>", "<|call|>", "<|return|>")))
                .calls("tool_call", List.of(), List.of())
                .body(new HarmonyBody()).build());
        register.accept(new Builder("kimi_think").thinking("think", "◁think▷", "◁/think▷")
                .section("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>")
                .calls("tool_call", List.of("<|tool_call_begin|>"), List.of("<|tool_call_end|>"))
                .kimiSections().body(new KimiK2Body()).build());
        return Collections.unmodifiableMap(all);
    }

    /** Every dialect's rules, {@code bellows} first, in the documented order. */
    public static List<DialectSpec> all() {
        return List.copyOf(ALL.values());
    }

    /** The rules of a dialect (every {@link Dialect} has them: they are made together). */
    public static DialectSpec of(Dialect dialect) {
        return ALL.get(dialect.name());
    }

    public String name() {
        return name;
    }

    /** Whether this dialect uses the contract's tags (and so the tag options) rather than literal delimiters. */
    public boolean usesTags() {
        return this == BELLOWS;
    }

    /** The format of the dialect's tool block bodies. */
    public ToolBodyFormat body() {
        return body;
    }

    @Override
    public String toString() {
        return name;
    }

    /** Builds one dialect; only the registry above uses it. */
    static final class Builder {
        private final String name;
        private final List<Thinking> thinking = new ArrayList<>();
        private String sectionOpen;
        private String sectionClose;
        private final List<String> sectionOpenVariants = new ArrayList<>();
        private final List<String> sectionCloseVariants = new ArrayList<>();
        private String sectionRepeat;
        private String separators = "";
        private String sectionCloseChars = "";
        private String callName = "tool_call";
        private final List<String> callOpen = new ArrayList<>();
        private final List<String> callClose = new ArrayList<>();
        private String keptCallOpen;
        private String keptCallClose;
        private String keptStarters = "";
        private boolean identifierStartsCall;
        private boolean jsonDelimited;
        private boolean leadingJsonCall;
        private boolean nameKeyStartsCall;
        private Headers headers;
        private ToolBodyFormat body;
        private boolean heldJsonCalls;
        private boolean emptySectionIsText;
        private boolean sectionDropsNoise;
        private boolean looseCalls;
        private boolean callsEndThinking;

        Builder(String name) {
            this.name = name;
        }

        Builder thinking(String displayName, String open, String close) {
            thinking.add(new Thinking(displayName, open, close));
            return this;
        }

        Builder section(String open, String close) {
            this.sectionOpen = open;
            this.sectionClose = close;
            return this;
        }

        Builder sectionVariant(String open, String close) {
            this.sectionOpenVariants.add(open);
            this.sectionCloseVariants.add(close);
            return this;
        }

        Builder sectionRepeat(String marker) {
            this.sectionRepeat = marker;
            return this;
        }

        Builder separators(String chars) {
            this.separators = chars;
            return this;
        }

        Builder sectionCloseChars(String chars) {
            this.sectionCloseChars = chars;
            return this;
        }

        Builder calls(String blockName, List<String> open, List<String> close) {
            this.callName = blockName;
            this.callOpen.addAll(open);
            this.callClose.addAll(close);
            return this;
        }

        Builder keptCall(String open, String close) {
            this.keptCallOpen = open;
            this.keptCallClose = close;
            return this;
        }

        Builder keptStarters(String chars) {
            this.keptStarters = chars;
            return this;
        }

        Builder identifierStartsCall() {
            this.identifierStartsCall = true;
            return this;
        }

        Builder jsonDelimited() {
            this.jsonDelimited = true;
            return this;
        }

        Builder nameKeyStartsCall() {
            this.nameKeyStartsCall = true;
            return this;
        }

        Builder leadingJsonCall() {
            this.leadingJsonCall = true;
            return this;
        }

        Builder heldJsonCalls() {
            this.heldJsonCalls = true;
            return this;
        }

        Builder emptySectionIsText() {
            this.emptySectionIsText = true;
            return this;
        }

        /** Kimi's habits: noise in a section dropped, calls without a section, calls ending thinking. */
        Builder kimiSections() {
            this.sectionDropsNoise = true;
            this.looseCalls = true;
            this.callsEndThinking = true;
            return this;
        }

        Builder headers(Headers headers) {
            this.headers = headers;
            return this;
        }

        Builder body(ToolBodyFormat body) {
            this.body = body;
            return this;
        }

        DialectSpec build() {
            return new DialectSpec(this);
        }
    }
}
