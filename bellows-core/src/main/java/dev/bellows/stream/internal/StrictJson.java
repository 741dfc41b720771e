package dev.bellows.stream.internal;

import tools.jackson.databind.ObjectReader;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.JsonParser;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.json.internal.FrozenJson;
import dev.bellows.json.internal.FrozenTreeReader;
import tools.jackson.core.JsonToken;

/**
 * Reads one strict RFC 8259 JSON value with Jackson and, when the text is not valid,
 * says what is wrong in words a model can act on (Jackson's own messages name Java
 * classes and feature flags, which mean nothing to a model).
 */
public final class StrictJson {

    /**
     * The one reader of the decoders, on Bellows' mapper. It is immutable, so sharing it is safe.
     * Every leniency is off (they are off by default; listing them documents the
     * contract). Floats are read as exact decimals ({@link FrozenTreeReader}) so that arguments keep
     * the numbers the model wrote: doubles would round long decimals and turn 1e400 into Infinity.
     * Strings have no length limit: the content is already in memory, and the contract
     * expects tool arguments of many megabytes. Nesting keeps Jackson's default limit,
     * which protects the stack.
     */
    private static final ObjectReader MAPPER = Jackson.JSON.reader()
            .without(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .without(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .without(JsonReadFeature.ALLOW_MISSING_VALUES)
            .without(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .without(JsonReadFeature.ALLOW_YAML_COMMENTS)
            .without(JsonReadFeature.ALLOW_SINGLE_QUOTES)
            .without(JsonReadFeature.ALLOW_UNQUOTED_PROPERTY_NAMES)
            .without(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .without(JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER)
            .without(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS)
            .without(JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS)
            .without(JsonReadFeature.ALLOW_LEADING_DECIMAL_POINT_FOR_NUMBERS)
            .without(JsonReadFeature.ALLOW_TRAILING_DECIMAL_POINT_FOR_NUMBERS);


    private StrictJson() {
    }

    static ObjectNode emptyObject() {
        return MAPPER.createObjectNode();
    }

    /**
     * Reads exactly one JSON value; only whitespace may follow it. A key repeated inside
     * an object keeps its last value, as in common JSON parsers. The tree is frozen
     * ({@link FrozenJson}): built read-only in the one pass over the text, so the calls made of
     * it keep it without a copy.
     */
    public static JsonNode read(String text) throws SyntaxError {
        JsonParser parser = MAPPER.createParser(text);
        try (parser) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new SyntaxError("there is no JSON value", 0);
            }
            JsonNode value = FrozenTreeReader.read(parser, first, true);
            // Checked by hand rather than with FAIL_ON_TRAILING_TOKENS: that error names
            // Java classes, and trailing garbage is not always a token at all.
            int end = clamp(parser.currentLocation().getCharOffset(), text);
            int rest = ContentText.skipWhitespace(text, end, text.length());
            if (rest < text.length()) {
                throw new SyntaxError("unexpected " + ContentText.describeChar(text, rest)
                        + " after the end of the JSON value: write exactly one value", rest);
            }
            return value;
        } catch (JacksonException e) {
            throw new SyntaxError(problem(e, text), offset(e, text));
        } catch (NumberFormatException | ArithmeticException e) {
            // Jackson lets these through for a number it cannot hold, like 1e999999999999.
            throw new SyntaxError("a number is too large to read: write it with a smaller exponent",
                    clamp(parser.currentTokenLocation().getCharOffset(), text));
        } catch (RuntimeException e) {
            // Not expected from an in-memory string; still the model's text, so still
            // reported as the model's error rather than thrown.
            DecoderFallback.log("the JSON reader", e);
            throw new SyntaxError(DecoderFallback.JSON, clamp(parser.currentLocation().getCharOffset(), text));
        }
    }

    private static int clamp(long offset, String text) {
        return (int) Math.min(Math.max(offset, 0), text.length());
    }

    private static int offset(JacksonException e, String text) {
        TokenStreamLocation location = e.getLocation();
        int at = location == null || location.getCharOffset() < 0 ? text.length() : clamp(location.getCharOffset(), text);
        // For a stray control character Jackson reports the position after it.
        String message = e.getOriginalMessage();
        if (message != null && message.startsWith("Illegal character") && at > 0
                && Character.isISOControl(text.charAt(at - 1))) {
            at--;
        }
        // Jackson 3 places an unknown word at its start; the position given is after it, as before.
        if (message != null && message.startsWith("Unrecognized token '")) {
            String word = message.substring("Unrecognized token '".length(), Math.max(message.indexOf('\'', 20), 20));
            if (text.startsWith(word, at)) {
                at += word.length();
            }
        }
        return at;
    }

    /**
     * Turns Jackson's message into advice. It keys on the stable beginnings of Jackson's
     * messages; anything unknown falls back to a plain "not valid JSON" (plus the
     * position the caller adds), never to Jackson's wording.
     */
    private static String problem(JacksonException e, String text) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        int at = offset(e, text);
        String found = ContentText.describeChar(text, at);
        if (message.startsWith("Unexpected character")) {
            return unexpectedCharacter(message, found, at < text.length() ? text.charAt(at) : 0);
        }
        if (message.startsWith("Non-standard token")) {
            return quotedToken(message) + " is not allowed in JSON (no NaN or Infinity): use a number, a string or null";
        }
        if (message.startsWith("Unrecognized token")) {
            return "unknown word " + quotedToken(message)
                    + ": a value must be a string in double quotes, a number, an object, an array, true, false or null";
        }
        if (message.startsWith("Unexpected end-of-input")) {
            return message.contains("closing quote")
                    ? "the text ends inside a string: a closing '\"' is missing"
                    : "the text ends too early: a closing '}' or ']' is missing";
        }
        if (message.startsWith("Illegal character")) {
            return "unexpected " + found + ": only spaces, tabs and line breaks may stand between JSON tokens";
        }
        if (message.startsWith("Illegal unquoted character")) {
            return "a control character (such as a line break or a tab) inside a string must be escaped, like \\n or \\t";
        }
        if (message.startsWith("Unrecognized character escape")) {
            return "invalid escape in a string: use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX";
        }
        if (message.startsWith("Invalid numeric value") || message.contains("numeric value")) {
            return message.contains("Leading zeroes")
                    ? "invalid number: a number must not start with 0 unless it is 0 or 0.something"
                    : "invalid number: write numbers like 42, -1.5 or 2e10";
        }
        if (message.contains("nesting depth")) {
            return "the JSON is nested too deeply";
        }
        if (message.startsWith("Number value length")) {
            return "a number has too many digits";
        }
        if (message.startsWith("Name length")) {
            return "a key is too long";
        }
        return "this is not valid JSON";
    }

    private static String unexpectedCharacter(String message, String found, char c) {
        if (message.contains("comment")) {
            return "comments are not allowed in JSON";
        }
        if (message.contains("double-quote to start property name")) {
            return c == '}'
                    ? "expected a key in double quotes but found '}': remove the trailing comma"
                    : "expected a key in double quotes but found " + found;
        }
        if (message.contains("expected a valid value")) {
            return c == ']' || c == '}'
                    ? "expected a value but found '" + c + "': remove the trailing comma"
                    : "expected a value (a string in double quotes, a number, an object, an array, true, false or null)"
                            + " but found " + found;
        }
        if (message.contains("colon")) {
            return "expected ':' after the key but found " + found;
        }
        if (message.contains("Object entries")) {
            return "expected ',' or '}' but found " + found;
        }
        if (message.contains("Array entries")) {
            return "expected ',' or ']' but found " + found;
        }
        if (message.contains("hex-digit")) {
            return "\\u in a string must be followed by four hex digits";
        }
        if (message.contains("numeric value")) {
            return "invalid number: write numbers like 42, -1.5 or 2e10";
        }
        return "unexpected " + found;
    }

    /** The token Jackson quoted, such as 'NaN', taken from the message. */
    private static String quotedToken(String message) {
        int open = message.indexOf('\'');
        int close = open < 0 ? -1 : message.indexOf('\'', open + 1);
        if (close < 0) {
            return "this word";
        }
        String token = message.substring(open + 1, close);
        return "'" + (token.length() > 40 ? token.substring(0, 40) + "..." : token) + "'";
    }
}
