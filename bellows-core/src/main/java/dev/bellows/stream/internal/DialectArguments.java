package dev.bellows.stream.internal;


/**
 * The argument readers of the dialects' bodies (docs/dialects.md): JSON arguments after a marker
 * or a name, and the named parameters of Qwen3-Coder, GLM and MiniMax, each reported with the
 * value the dialect's decoder gives it, when its close delimiter completes. Every reader looks at
 * each character once (plain text in runs up to the next {@code <}) and keeps only the name of the
 * call, the key and the value being read.
 */
final class DialectArguments {

    private DialectArguments() {
    }

    /** A name or key longer than this is not one: the reader gives up (the decoder will complain). */
    private static final int MAX_NAME = 512;

    /** The arguments object that follows the first {@code marker} of the body, after optional whitespace. */
    static ArgumentReader afterMarker(String marker, ArgumentReader.Sink sink) {
        return new AfterMarker(marker, false, sink);
    }

    /**
     * The arguments object at the first {@code {} after the first {@code marker} (or after the start
     * of the body when it is null): DeepSeek V3 writes the name and a fence line in between.
     */
    static ArgumentReader firstObjectAfter(String marker, ArgumentReader.Sink sink) {
        return new AfterMarker(marker, true, sink);
    }

    /** The body is the arguments object itself (leading whitespace allowed). */
    static ArgumentReader whole(ArgumentReader.Sink sink) {
        return JsonArgumentScanner.forArguments(sink);
    }

    /** Skips to the first {@code marker} (and to the next brace, when asked), then reads the arguments object. */
    private static final class AfterMarker implements ArgumentReader {
        private final TextMatcher marker;
        private final boolean skipToBrace;
        private final JsonArgumentScanner json;
        private boolean markerFound;
        private boolean started;

        AfterMarker(String marker, boolean skipToBrace, Sink sink) {
            this.marker = marker == null ? null : new TextMatcher(marker);
            this.markerFound = marker == null;
            this.skipToBrace = skipToBrace;
            this.json = JsonArgumentScanner.forArguments(sink);
        }

        @Override
        public void feed(CharSequence text, int from, int to) {
            int i = from;
            while (!markerFound && i < to) {
                markerFound = marker.accept(text.charAt(i++));
            }
            if (skipToBrace) {
                while (!started && i < to) {
                    started = text.charAt(i) == '{';
                    if (!started) {
                        i++;
                    }
                }
            } else {
                started = markerFound;
            }
            if (started && i < to && !json.isDone()) {
                json.feed(text, i, to);
            }
        }
    }

    // ---- Qwen3-Coder ---------------------------------------------------------------------

    /**
     * {@code <function=NAME><parameter=P>\nvalue\n</parameter>...</function>}: each parameter when its
     * {@code </parameter>} completes (or, tolerated as the decoder does, when the next
     * {@code <parameter=} or the end of the block ends it); a JSON body is read as a JSON call.
     */
    static ArgumentReader qwen3Coder(ParameterSchemas schemas, ArgumentReader.Sink sink) {
        return new Qwen3Coder(schemas, sink);
    }

    private static final class Qwen3Coder implements ArgumentReader {
        private static final String FUNCTION = "<function=";
        private static final int START = 0;
        private static final int FUNCTION_PREFIX = 1;
        private static final int NAME = 2;
        private static final int SEEK = 3;
        private static final int KEY = 4;
        private static final int VALUE = 5;
        private static final int JSON = 6;
        private static final int DONE = 7;

        private final ParameterSchemas schemas;
        private final Sink sink;
        private int state = START;
        private int prefixMatched;
        private final StringBuilder buffer = new StringBuilder();
        private String name;
        private String key;
        private final TextMatcher parameter = new TextMatcher("<parameter=");
        private final TextMatcher parameterEnd = new TextMatcher("</parameter>");
        private final TextMatcher functionEnd = new TextMatcher("</function>");
        private JsonArgumentScanner json;

        Qwen3Coder(ParameterSchemas schemas, Sink sink) {
            this.schemas = schemas;
            this.sink = sink;
        }

        @Override
        public void feed(CharSequence text, int from, int to) {
            int i = from;
            while (i < to && state != DONE) {
                switch (state) {
                    case JSON -> {
                        json.feed(text, i, to);
                        return;
                    }
                    case VALUE -> i = valueRun(text, i, to);
                    case SEEK -> i = seekRun(text, i, to);
                    default -> accept(text.charAt(i++));
                }
            }
        }

        private void accept(char c) {
            switch (state) {
                case START -> {
                    if (c == '{') {
                        json = JsonArgumentScanner.forCall(sink);
                        json.feed("{", 0, 1);
                        state = JSON;
                    } else if (c == '<') {
                        prefixMatched = 1;
                        state = FUNCTION_PREFIX;
                    } else if (!ContentText.isWhitespace(c)) {
                        state = DONE;
                    }
                }
                case FUNCTION_PREFIX -> {
                    if (FUNCTION.charAt(prefixMatched) != c) {
                        state = DONE;
                    } else if (++prefixMatched == FUNCTION.length()) {
                        buffer.setLength(0);
                        state = NAME;
                    }
                }
                case NAME -> {
                    if (c == '>') {
                        String trimmed = ContentText.trim(buffer.toString());
                        if (PrefixNameSniffer.checkedName(trimmed) == PrefixNameSniffer.NONE) {
                            state = DONE;
                        } else {
                            name = trimmed;
                            state = SEEK;
                        }
                    } else if (buffer.length() >= MAX_NAME) {
                        state = DONE;
                    } else {
                        buffer.append(c);
                    }
                }
                case KEY -> {
                    if (c == '>') {
                        key = ContentText.trim(buffer.toString());
                        buffer.setLength(0);
                        parameterEnd.reset();
                        parameter.reset();
                        state = key.isEmpty() ? DONE : VALUE;
                    } else if (buffer.length() >= MAX_NAME) {
                        state = DONE;
                    } else {
                        buffer.append(c);
                    }
                }
                default -> { }
            }
        }

        /** Between parameters: only {@code <parameter=} and {@code </function>} matter. */
        private int seekRun(CharSequence text, int from, int to) {
            int i = from;
            while (i < to) {
                char c = text.charAt(i++);
                if (parameter.matched() == 0 && functionEnd.matched() == 0 && c != '<') {
                    continue;
                }
                boolean next = parameter.accept(c);
                boolean end = functionEnd.accept(c);
                if (end) {
                    state = DONE; // parameters after the function's end are not the call's
                    return i;
                }
                if (next) {
                    buffer.setLength(0);
                    state = KEY;
                    return i;
                }
            }
            return i;
        }

        /** A value's text, in runs up to the next '<', until {@code </parameter>} or the next {@code <parameter=}. */
        private int valueRun(CharSequence text, int from, int to) {
            int i = from;
            while (i < to) {
                if (parameterEnd.matched() == 0 && parameter.matched() == 0) {
                    int run = i;
                    while (run < to && text.charAt(run) != '<') {
                        run++;
                    }
                    buffer.append(text, i, run);
                    i = run;
                    if (i == to) {
                        return i;
                    }
                }
                char c = text.charAt(i++);
                buffer.append(c);
                if (parameterEnd.accept(c)) {
                    parameter.reset();
                    report(buffer.length() - parameterEnd.length());
                    state = SEEK;
                    return i;
                }
                if (parameter.accept(c)) { // tolerated: the value runs to the next parameter
                    parameterEnd.reset();
                    report(buffer.length() - parameter.length());
                    buffer.setLength(0);
                    state = KEY;
                    return i;
                }
            }
            return i;
        }

        private void report(int valueEnd) {
            String value = buffer.substring(0, valueEnd);
            buffer.setLength(0);
            sink.argument(key, schemas.value(name, key, Qwen3CoderBody.stripOneLineBreak(value)));
        }

        @Override
        public void end() {
            if (state == VALUE) { // tolerated: the last value runs to the last </function>, or to the end
                String value = buffer.toString();
                value = value.substring(0, ContentText.trimEnd(value, 0, value.length()));
                int function = value.lastIndexOf("</function>");
                report(function >= 0 ? function : value.length());
                buffer.setLength(0);
                state = DONE;
            }
        }
    }

    // ---- GLM -----------------------------------------------------------------------------

    /**
     * {@code NAME<arg_key>K</arg_key><arg_value>V</arg_value>...}: each pair when its
     * {@code </arg_value>} completes, typed as {@link ParameterSchemas#glmValue} types it.
     */
    static ArgumentReader glm(ParameterSchemas schemas, ArgumentReader.Sink sink) {
        return new Glm(schemas, sink);
    }

    private static final class Glm implements ArgumentReader {
        private static final String KEY_OPEN = "<arg_key>";
        private static final String VALUE_OPEN = "<arg_value>";
        private static final int NAME = 0;
        private static final int KEY = 1;
        private static final int EXPECT_VALUE = 2;
        private static final int VALUE = 3;
        private static final int EXPECT_KEY = 4;
        private static final int DONE = 5;

        private final ParameterSchemas schemas;
        private final Sink sink;
        private int state = NAME;
        private final StringBuilder buffer = new StringBuilder();
        private String name;
        private String key;
        private int expected;
        private final TextMatcher keyOpen = new TextMatcher(KEY_OPEN);
        private final TextMatcher keyEnd = new TextMatcher("</arg_key>");
        private final TextMatcher valueEnd = new TextMatcher("</arg_value>");

        Glm(ParameterSchemas schemas, Sink sink) {
            this.schemas = schemas;
            this.sink = sink;
        }

        @Override
        public void feed(CharSequence text, int from, int to) {
            int i = from;
            while (i < to && state != DONE) {
                if (state == VALUE && valueEnd.matched() == 0) {
                    int run = i;
                    while (run < to && text.charAt(run) != '<') {
                        run++;
                    }
                    buffer.append(text, i, run);
                    i = run;
                    if (i == to) {
                        return;
                    }
                }
                accept(text.charAt(i++));
            }
        }

        private void accept(char c) {
            switch (state) {
                case NAME -> {
                    buffer.append(c);
                    if (keyOpen.accept(c)) {
                        String trimmed = ContentText.trim(buffer.substring(0, buffer.length() - KEY_OPEN.length()));
                        buffer.setLength(0);
                        if (PrefixNameSniffer.checkedName(trimmed) == PrefixNameSniffer.NONE) {
                            state = DONE;
                        } else {
                            name = trimmed;
                            state = KEY;
                        }
                    } else if (buffer.length() > MAX_NAME) {
                        state = DONE;
                    }
                }
                case KEY -> {
                    buffer.append(c);
                    if (keyEnd.accept(c)) {
                        key = ContentText.trim(buffer.substring(0, buffer.length() - "</arg_key>".length()));
                        buffer.setLength(0);
                        expected = 0;
                        state = EXPECT_VALUE;
                    } else if (buffer.length() > MAX_NAME) {
                        state = DONE;
                    }
                }
                case EXPECT_VALUE -> expect(c, VALUE_OPEN, VALUE);
                case VALUE -> {
                    buffer.append(c);
                    if (valueEnd.accept(c)) {
                        String value = buffer.substring(0, buffer.length() - "</arg_value>".length());
                        buffer.setLength(0);
                        sink.argument(key, schemas.glmValue(name, key, value));
                        expected = 0;
                        state = EXPECT_KEY;
                    }
                }
                case EXPECT_KEY -> expect(c, KEY_OPEN, KEY);
                default -> { }
            }
        }

        /** Whitespace, then exactly {@code what}; anything else ends the reading (the decoder will say why). */
        private void expect(char c, String what, int then) {
            if (expected == 0 && ContentText.isWhitespace(c)) {
                return;
            }
            if (what.charAt(expected) != c) {
                state = DONE;
            } else if (++expected == what.length()) {
                state = then;
            }
        }
    }

    // ---- MiniMax -------------------------------------------------------------------------

    /**
     * The body after {@code <invoke}: {@code name="NAME">}, then {@code <parameter name="P">v</parameter>}
     * elements: each when its {@code </parameter>} completes, its value trimmed and typed by the schema.
     */
    static ArgumentReader minimax(ParameterSchemas schemas, ArgumentReader.Sink sink) {
        return new Minimax(schemas, sink);
    }

    private static final class Minimax implements ArgumentReader {
        private static final int INVOKE_NAME = 0;
        private static final int SEEK = 1;
        private static final int PARAMETER_NAME = 2;
        private static final int VALUE = 3;
        private static final int DONE = 4;

        private final ParameterSchemas schemas;
        private final Sink sink;
        private int state = INVOKE_NAME;
        private final NameAttribute attribute = new NameAttribute();
        private final StringBuilder value = new StringBuilder();
        private String name;
        private String key;
        private final TextMatcher parameter = new TextMatcher("<parameter");
        private final TextMatcher parameterEnd = new TextMatcher("</parameter>");

        Minimax(ParameterSchemas schemas, Sink sink) {
            this.schemas = schemas;
            this.sink = sink;
        }

        @Override
        public void feed(CharSequence text, int from, int to) {
            int i = from;
            while (i < to && state != DONE) {
                char c = text.charAt(i);
                if ((state == VALUE && parameterEnd.matched() == 0) || (state == SEEK && parameter.matched() == 0)) {
                    int run = i;
                    while (run < to && text.charAt(run) != '<') {
                        run++;
                    }
                    if (state == VALUE) {
                        value.append(text, i, run);
                    }
                    i = run;
                    if (i == to) {
                        return;
                    }
                    c = text.charAt(i);
                }
                i++;
                switch (state) {
                    case INVOKE_NAME, PARAMETER_NAME -> {
                        int verdict = attribute.accept(c);
                        if (verdict == NameAttribute.BROKEN) {
                            state = DONE;
                        } else if (verdict == NameAttribute.COMPLETE) {
                            if (state == INVOKE_NAME) {
                                name = attribute.value();
                                state = PrefixNameSniffer.checkedName(name) == PrefixNameSniffer.NONE ? DONE : SEEK;
                            } else {
                                key = attribute.value();
                                value.setLength(0);
                                parameterEnd.reset();
                                state = VALUE;
                            }
                        }
                    }
                    case SEEK -> {
                        if (parameter.accept(c)) {
                            attribute.reset();
                            state = PARAMETER_NAME;
                        }
                    }
                    case VALUE -> {
                        value.append(c);
                        if (parameterEnd.accept(c)) {
                            String raw = value.substring(0, value.length() - "</parameter>".length());
                            value.setLength(0);
                            sink.argument(key, schemas.value(name, key, ContentText.trim(raw)));
                            parameter.reset();
                            state = SEEK;
                        }
                    }
                    default -> { }
                }
            }
        }
    }

    /**
     * {@code name="V">} (or {@code name='V'>}, or {@code name=V>}) after optional whitespace, up to the
     * first {@code >} after the value: other attributes are skipped, as the decoder skips them.
     */
    private static final class NameAttribute {
        static final int MORE = 0;
        static final int COMPLETE = 1;
        static final int BROKEN = 2;
        private static final String PREFIX = "name=";

        private int prefixMatched;
        private char quote;
        private boolean valueEnded;
        private final StringBuilder value = new StringBuilder();

        void reset() {
            prefixMatched = 0;
            quote = 0;
            valueEnded = false;
            value.setLength(0);
        }

        String value() {
            return value.toString();
        }

        int accept(char c) {
            if (prefixMatched < PREFIX.length()) {
                if (prefixMatched == 0 && ContentText.isWhitespace(c)) {
                    return MORE;
                }
                return PREFIX.charAt(prefixMatched++) == c ? MORE : BROKEN;
            }
            if (valueEnded) {
                return c == '>' ? COMPLETE : MORE;
            }
            if (quote == 0 && value.isEmpty() && (c == '"' || c == '\'')) {
                quote = c;
                return MORE;
            }
            if (quote != 0 ? c == quote : (c == '>' || ContentText.isWhitespace(c))) {
                valueEnded = true;
                return c == '>' ? COMPLETE : MORE;
            }
            if (value.length() >= MAX_NAME) {
                return BROKEN;
            }
            value.append(c);
            return MORE;
        }
    }
}
