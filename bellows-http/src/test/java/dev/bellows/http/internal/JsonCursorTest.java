package dev.bellows.http.internal;

import dev.bellows.http.internal.JsonCursor;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The cursor reads JSON as Jackson does, or leaves it: strings decode to Jackson's text, every
 * value skipped is checked as JSON, and whatever it does not take plainly is {@link JsonCursor.Unusual}.
 */
class JsonCursorTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    private static JsonCursor over(String json) {
        JsonCursor cursor = new JsonCursor();
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        cursor.reset(bytes, bytes.length);
        return cursor;
    }

    /** Any text Jackson writes as a JSON string comes back as that text. */
    @Property(tries = 2000)
    void stringsDecodeToWhatWasWritten(@ForAll String text) throws Exception {
        JsonCursor cursor = over(JSON.writeValueAsString(text));
        assertThat(cursor.string()).isEqualTo(text);
        cursor.finish();
    }

    /** Escapes as a JSON writer may send them, lone surrogates included, decode as Jackson decodes them. */
    @Test
    void escapesDecodeAsJacksonDecodesThem() throws Exception {
        for (String json : List.of("\"\\u00C9t\\u00e9\"", "\"\\ud800\"", "\"a\\udc00b\"", "\"\\/\\b\\f\\r\\t\\\\\\\"\"",
                "\"é\\né 😀\"", "\"a\\u0000b\"", "\"\\ud83d\\ude00\"", "\"\"")) {
            assertThat(over(json).string()).as(json).isEqualTo(JSON.readValue(json, String.class));
        }
    }

    @Test
    void everyValueSkippedIsCheckedAsJson() throws Exception {
        for (String json : List.of("0", "-0", "12.5e-3", "1E+2", "true", "false", "null", "\"x\\u0041\"", "[]", "{}",
                "[1, [2, {\"a\": [null]}], \"s\"]", "{\"\\u0061\": {\"b\": []}, \"c\": -1}", " [ 1 , 2 ] ")) {
            JsonCursor cursor = over(json.strip());
            cursor.skip();
            cursor.finish();
            JSON.readTree(json);                    // and Jackson takes it too
        }
        for (String broken : List.of("01", "-", "1.", ".5", "1e", "tru", "nul", "[1 2]", "{\"a\" 1}", "{,}", "[,]",
                "{\"a\":1,}", "[1,]", "\"\\q\"", "\"\\u12g4\"", "\"tab\tin\"", "\"open", "{\"a\":", "[", "x")) {
            assertThatThrownBy(() -> {
                JsonCursor cursor = over(broken);
                cursor.skip();
                cursor.finish();
            }).as(broken).isInstanceOf(JsonCursor.Unusual.class);
        }
    }

    @Test
    void deepValuesAreLeftToTheGeneralParser() throws Exception {
        over("[".repeat(JsonCursor.MAX_DEPTH) + "]".repeat(JsonCursor.MAX_DEPTH)).skip();
        String deeper = "[".repeat(JsonCursor.MAX_DEPTH + 1) + "]".repeat(JsonCursor.MAX_DEPTH + 1);
        assertThatThrownBy(() -> over(deeper).skip()).isInstanceOf(JsonCursor.Unusual.class);
    }

    @Test
    void integersAreReadWhenPlainElseLeft() throws Exception {
        assertThat(over("0").integer()).isZero();
        assertThat(over("-0").integer()).isZero();
        assertThat(over("123456789012345678").integer()).isEqualTo(123456789012345678L);
        assertThat(over("-2147483648").intValue()).isEqualTo(Integer.MIN_VALUE);
        for (String unusual : List.of("1234567890123456789", "1.0", "2e3", "00")) {
            assertThatThrownBy(() -> over(unusual).integer()).as(unusual).isInstanceOf(JsonCursor.Unusual.class);
        }
        assertThatThrownBy(() -> over("2147483648").intValue()).isInstanceOf(JsonCursor.Unusual.class);
    }

    @Test
    void wordsComeBackAsTheSameInstanceAndOtherStringsDecoded() throws Exception {
        String[] words = {"text_delta", "end_turn"};
        assertThat(over("\"end_turn\"").word(words)).isSameAs(words[1]);
        assertThat(over("\"end_turnx\"").word(words)).isEqualTo("end_turnx");
        assertThat(over("\"end\\u005fturn\"").word(words)).isEqualTo("end_turn").isNotSameAs(words[1]);
        assertThat(over("\"é\"").word(words)).isEqualTo("é");
    }

    @Test
    void countsAndTextsAsTheDecodersReadThem() throws Exception {
        assertThat(over("7").count()).isEqualTo(7);
        assertThat(over("-3").count()).isEqualTo(-1);
        assertThat(over("\"7\"").count()).isEqualTo(-1);
        assertThat(over("null").count()).isEqualTo(-1);
        assertThatThrownBy(() -> over("7.5").count()).isInstanceOf(JsonCursor.Unusual.class);
        assertThat(over("\"a\"").textOrNull()).isEqualTo("a");
        JsonCursor skipped = over("{\"a\": [1]}");
        assertThat(skipped.textOrNull()).isNull();
        skipped.finish();                           // the whole object was skipped
    }

    @Test
    void fieldsAreMatchedByTheirNamesAndEscapedNamesAreLeft() throws Exception {
        JsonCursor cursor = over(" { \"id\" : \"a\" , \"model\":2 } ");
        assertThat(cursor.enterObject()).isTrue();
        assertThat(cursor.key("id".getBytes(StandardCharsets.US_ASCII))).isTrue();
        assertThat(cursor.string()).isEqualTo("a");
        assertThat(cursor.nextField()).isTrue();
        assertThat(cursor.key("id".getBytes(StandardCharsets.US_ASCII))).isFalse();
        assertThat(cursor.key("model".getBytes(StandardCharsets.US_ASCII))).isTrue();
        cursor.skip();
        assertThat(cursor.nextField()).isFalse();
        cursor.finish();
        assertThatThrownBy(() -> over("{\"\\u0069d\":1}").enterObject()).isInstanceOf(JsonCursor.Unusual.class);
        JsonCursor trailing = over("{} x");
        assertThat(trailing.enterObject()).isFalse();
        assertThatThrownBy(trailing::finish).isInstanceOf(JsonCursor.Unusual.class);
    }
}
