package dev.bellows.stream.internal;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.JsonNode;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

class ToolNameSnifferTest {

    /** Feeds the pieces in order to one sniffer; the result of each feed() call. */
    static List<String> feedPieces(String... pieces) {
        ToolNameSniffer sniffer = new ToolNameSniffer();
        List<String> results = new ArrayList<>();
        for (String piece : pieces) {
            results.add(sniffer.feed(piece, 0, piece.length()));
        }
        return results;
    }

    /**
     * The name found in the content: fed whole, and again one character at a time, which must
     * agree and report the name from the call holding the content's last character.
     */
    static String nameOf(String content) {
        String whole = new ToolNameSniffer().feed(content, 0, content.length());
        ToolNameSniffer sniffer = new ToolNameSniffer();
        String byChar = null;
        for (int i = 0; i < content.length(); i++) {
            String name = sniffer.feed(content, i, i + 1);
            if (name != null) {
                assertThat(byChar).as("reported twice").isNull();
                byChar = name;
            }
        }
        assertThat(byChar).isEqualTo(whole);
        return whole;
    }

    static String feed(ToolNameSniffer sniffer, String text) {
        return sniffer.feed(text, 0, text.length());
    }

    static List<String> results(String... expected) {
        return Arrays.asList(expected);
    }

    @Nested
    class Preamble {

        @Test
        void leadingWhitespaceIsSkipped() {
            assertThat(nameOf(" \t\r\n {\"name\": \"x\"}")).isEqualTo("x");
            assertThat(nameOf("\n\n<tool_name>x</tool_name>")).isEqualTo("x");
        }

        @Test
        void whitespaceAloneDecidesNothing() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(sniffer.isDone()).isFalse();
            assertThat(feed(sniffer, "  \n\t")).isNull();
            assertThat(sniffer.isDone()).isFalse();
        }

        @ParameterizedTest
        @ValueSource(strings = {"hello", "[{\"name\": \"x\"}]", "\"name\"", "x<tool_name>y</tool_name>",
                "``{\"name\": \"x\"}", "`{\"name\": \"x\"}"})
        void anyOtherFirstCharacterMeansNoName(String content) {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, content)).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void fenceLineIsSkipped() {
            assertThat(nameOf("```json\n{\"name\": \"read_file\"}\n```")).isEqualTo("read_file");
            assertThat(nameOf("  ```\r\n  {\"tool\": \"a\"}")).isEqualTo("a");
            assertThat(nameOf("```xml\n<tool_name>b</tool_name>\n```")).isEqualTo("b");
            assertThat(nameOf("````json {not json\n{\"name\": \"c\"}")).isEqualTo("c");
            assertThat(nameOf("```a\rb\n{\"name\": \"d\"}")).isEqualTo("d"); // only \n ends the line
        }

        @Test
        void fenceCutAnywhere() {
            assertThat(feedPieces("`", "``js", "on", "\n", "{\"name\":\"x", "\"}"))
                    .isEqualTo(results(null, null, null, null, null, "x"));
        }

        @Test
        void fenceLineWithoutNewlineHoldsEverything() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            String content = "```json {\"name\": \"x\"}";
            assertThat(feed(sniffer, content)).isNull();
            assertThat(sniffer.isDone()).isFalse();
        }

        @Test
        void onlyOneFenceLineIsSkipped() {
            assertThat(nameOf("```\n```\n{\"name\": \"x\"}")).isNull();
        }
    }

    @Nested
    class Json {

        @Test
        void nameIsReportedByTheFeedThatHoldsTheClosingQuote() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, "{\"name\": \"read")).isNull();
            assertThat(sniffer.isDone()).isFalse();
            assertThat(feed(sniffer, "_file\"")).isEqualTo("read_file");
            assertThat(sniffer.isDone()).isTrue();
            assertThat(feed(sniffer, "}")).isNull();
        }

        @Test
        void eachAliasGivesTheName() {
            assertThat(nameOf("{\"tool_name\": \"a\"}")).isEqualTo("a");
            assertThat(nameOf("{\"name\": \"b\"}")).isEqualTo("b");
            assertThat(nameOf("{\"tool\": \"c\"}")).isEqualTo("c");
            assertThat(nameOf("{\"server_name\": \"s\", \"tool_name\": \"t\", \"arguments\": {}}")).isEqualTo("t");
            assertThat(nameOf("{\"arguments\": {\"path\": \"/tmp\"},\n  \"name\":\"late\"}")).isEqualTo("late");
        }

        @Test
        void theFirstNameMemberDecidesEvenWhenItIsNoString() {
            assertThat(nameOf("{\"name\": 5, \"tool_name\": \"x\"}")).isNull();
            assertThat(nameOf("{\"tool\": {\"name\": \"x\"}, \"name\": \"y\"}")).isNull();
            assertThat(nameOf("{\"tool\": null, \"name\": \"y\"}")).isNull();
            assertThat(nameOf("{\"tool\": [\"x\"], \"name\": \"y\"}")).isNull();
            assertThat(nameOf("{\"tool_name\": \"first\", \"name\": \"second\"}")).isEqualTo("first");
            assertThat(nameOf("{\"name\": \"first\", \"name\": \"second\"}")).isEqualTo("first");
        }

        @Test
        void noStringValueIsDecidedAtOnce() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, "{\"name\": 5")).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void emptyStringMeansNoName() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, "{\"name\": \"\", \"tool\": \"x\"}")).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void nestedNameKeysNeverCount() {
            assertThat(nameOf("{\"arguments\": {\"name\": \"x\"}, \"name\": \"real\"}")).isEqualTo("real");
            assertThat(nameOf("{\"arguments\": {\"inner\": {\"tool\": \"x\"}}, \"tool\": \"real\"}")).isEqualTo("real");
            assertThat(nameOf("{\"list\": [{\"name\": \"x\"}, \"name\", [\"tool\"]], \"name\": \"real\"}"))
                    .isEqualTo("real");
            assertThat(nameOf("{\"arguments\": {\"name\": \"x\"}}")).isNull();
        }

        @Test
        void stringValuesAreNotKeys() {
            assertThat(nameOf("{\"label\": \"name\", \"name\": \"real\"}")).isEqualTo("real");
            assertThat(nameOf("{\"label\": \"name\": \"x\"}")).isNull();
        }

        @Test
        void structuralCharactersInsideStringsDoNotCount() {
            assertThat(nameOf("{\"note\": \"} { ] [ , : \\\" \\\\\", \"name\": \"x\"}")).isEqualTo("x");
            assertThat(nameOf("{\"arguments\": \"{\\\"name\\\": \\\"x\\\"}\", \"name\": \"y\"}")).isEqualTo("y");
            assertThat(nameOf("{\"a}\": 1, \"name\": \"x\"}")).isEqualTo("x");
            assertThat(nameOf("{\"name\": \"a{b}\\\"c,d:e\"}")).isEqualTo("a{b}\"c,d:e");
        }

        @Test
        void topLevelObjectClosingEndsTheSearch() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            String content = "{\"a\": {\"b\": 1}}";
            assertThat(sniffer.feed(content, 0, content.length() - 1)).isNull();
            assertThat(sniffer.isDone()).isFalse();
            assertThat(sniffer.feed(content, content.length() - 1, content.length())).isNull();
            assertThat(sniffer.isDone()).isTrue();
            assertThat(nameOf("{}{\"name\": \"x\"}")).isNull();
            assertThat(nameOf("{ }")).isNull();
        }

        @Test
        void longKeysThatStartLikeNameKeysDoNotMatch() {
            assertThat(nameOf("{\"tool_names\": \"x\", \"names\": \"y\", \"tool_name_x\": \"z\", \"name\": \"w\"}"))
                    .isEqualTo("w");
            assertThat(nameOf("{\"Name\": \"x\", \"tool\": \"y\"}")).isEqualTo("y");
        }

        @Test
        void whitespaceAroundTheColon() {
            assertThat(nameOf("{\n  \"name\"\n\t:\r\n \"x\"\n}")).isEqualTo("x");
        }

        @Test
        void nameKeyWithoutColonMeansNoName() {
            assertThat(nameOf("{\"name\" \"x\"}")).isNull();
            assertThat(nameOf("{\"name\", \"tool\": \"x\"}")).isNull();
        }

        @Test
        void escapesAreDecodedInKeysAndValues() {
            assertThat(nameOf("{\"n\\u0061me\": \"caf\\u00e9\"}")).isEqualTo("café");
            assertThat(nameOf("{\"name\": \"caf\\u00E9\"}")).isEqualTo("café");
            assertThat(nameOf("{\"name\": \"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"}"))
                    .isEqualTo("a\"b\\c/d\be\ff\ng\rh\ti");
            assertThat(nameOf("{\"tool\\u005fname\": \"x\"}")).isEqualTo("x");
            assertThat(nameOf("{\"name\": \"caf\u00e9 \uD83D\uDE00\"}")).isEqualTo("café 😀");
        }

        @Test
        void surrogatePairEscapes() {
            assertThat(nameOf("{\"name\": \"\\ud83d\\ude00!\"}")).isEqualTo("😀!");
            assertThat(nameOf("{\"name\": \"\\uD83D\\uDE00\"}")).isEqualTo("😀");
        }

        @Test
        void escapesCutAnywhere() {
            assertThat(feedPieces("{\"name\": \"caf\\u00", "e9\\", "ud83d\\u", "de00", "\"}"))
                    .isEqualTo(results(null, null, null, null, "café😀"));
            assertThat(feedPieces("{\"na", "\\", "u006d", "e\"", ": ", "\"x\\", "\"", "\"")).isEqualTo(
                    results(null, null, null, null, null, null, null, "x\""));
        }

        @ParameterizedTest
        @ValueSource(strings = {
            "{\"name\": \"a\\qb\"}",          // unknown escape
            "{\"name\": \"a\\u00g9\"}",        // not hex
            "{\"name\": \"\\ud83d\"}",         // high surrogate alone
            "{\"name\": \"\\ud83dx\"}",        // high surrogate followed by a plain character
            "{\"name\": \"\\ud83d\\n\"}",      // high surrogate followed by another escape
            "{\"name\": \"\\ud83d\\u0041\"}",  // high surrogate followed by a non-surrogate
            "{\"name\": \"\\ude00\"}",         // low surrogate alone
            "{\"name\": \"a\nb\"}",            // raw control character
            "{\"n\\x\": 1, \"name\": \"x\"}",  // a key that cannot be decoded might have been the name key
        })
        void invalidStringsMeanNoName(String content) {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, content)).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void invalidEscapesOutsideTheDecidingStringsAreNotChecked() {
            assertThat(nameOf("{\"arguments\": {\"p\": \"\\q\\ud800\"}, \"name\": \"x\"}")).isEqualTo("x");
            assertThat(nameOf("{\"note\": \"\\x\", \"name\": \"x\"}")).isEqualTo("x");
        }

        @Test
        void restOfTheJsonIsNotValidated() {
            assertThat(nameOf("{\"a\": tru, \"b\": [1,,], \"name\": \"x\", oops")).isEqualTo("x");
        }
    }

    @Nested
    class Xml {

        @Test
        void nameIsReportedByTheFeedThatCompletesTheCloseTag() {
            assertThat(feedPieces("<server_name>local</server_name>\n<tool_name>read", "_file<",
                    "/tool_na", "me", ">", "\n<arguments><path>a</path></arguments>"))
                    .isEqualTo(results(null, null, null, null, "read_file", null));
        }

        @Test
        void openTagCutAnywhere() {
            assertThat(feedPieces("<", "tool", "_name", ">x<", "/tool_name>"))
                    .isEqualTo(results(null, null, null, null, "x"));
        }

        @Test
        void valueIsTrimmed() {
            assertThat(nameOf("<tool_name>\n  read_file \t\r\n</tool_name>")).isEqualTo("read_file");
            assertThat(nameOf("<tool_name> read file </tool_name>")).isEqualTo("read file");
            assertThat(nameOf("<tool_name>&#32;x&#10;</tool_name>")).isEqualTo("x");
        }

        @Test
        void emptyValueMeansNoName() {
            assertThat(nameOf("<tool_name></tool_name><tool_name>x</tool_name>")).isNull();
            assertThat(nameOf("<tool_name> \n </tool_name>")).isNull();
            assertThat(nameOf("<tool_name><![CDATA[ ]]></tool_name>")).isNull();
        }

        static Stream<Arguments> references() {
            return Stream.of(
                    Arguments.of("a&amp;b", "a&b"),
                    Arguments.of("&quot;q&quot; &apos;a&apos; &gt;", "\"q\" 'a' >"),
                    Arguments.of("caf&#233;", "café"),
                    Arguments.of("caf&#xE9;", "café"),
                    Arguments.of("caf&#xe9;", "café"),
                    Arguments.of("&#x1F600;&#128512;", "😀😀"),
                    Arguments.of("&#0065;", "A"),
                    Arguments.of("&foo;", "&foo;"),
                    Arguments.of("&amp", "&amp"),
                    Arguments.of("&AMP;", "&AMP;"),
                    Arguments.of("a & b", "a & b"),
                    Arguments.of("&#0;", "&#0;"),
                    Arguments.of("&#xD800;", "&#xD800;"),
                    Arguments.of("&#x110000;", "&#x110000;"),
                    Arguments.of("&#99999999999999999999;", "&#99999999999999999999;"),
                    Arguments.of("&#X41;", "&#X41;"),
                    Arguments.of("&#;&#x;", "&#;&#x;"),
                    Arguments.of("&#12a;", "&#12a;"),
                    Arguments.of("&&amp;", "&&"),
                    Arguments.of("&ampamp;", "&ampamp;"),
                    Arguments.of("&amp;lt;", "&lt;"));
        }

        @ParameterizedTest
        @MethodSource("references")
        void entitiesAndCharacterReferencesAreDecoded(String raw, String expected) {
            assertThat(nameOf("<tool_name>" + raw + "</tool_name>")).isEqualTo(expected);
        }

        @Test
        void cdataIsUnwrappedAndTakenLiterally() {
            assertThat(nameOf("<tool_name><![CDATA[ read_file ]]></tool_name>")).isEqualTo("read_file");
            assertThat(nameOf("<tool_name>a<![CDATA[&amp;]]>b<![CDATA[]]></tool_name>")).isEqualTo("a&amp;b");
            assertThat(nameOf("<tool_name><![CDATA[x]]]]]>&gt;</tool_name>")).isEqualTo("x]]]>");
            assertThat(nameOf("<tool_name><![CDATA[a]b]]c>]]></tool_name>")).isEqualTo("a]b]]c>");
            assertThat(nameOf("<tool_name><![CDATA[a]>b]]></tool_name>")).isEqualTo("a]>b");
        }

        @Test
        void cdataCutAnywhere() {
            assertThat(feedPieces("<tool_name><", "![CD", "ATA[x]", "]", ">y</tool_name", ">"))
                    .isEqualTo(results(null, null, null, null, null, "xy"));
        }

        @ParameterizedTest
        @ValueSource(strings = {
            "<tool_name>a<b>c</b></tool_name>",
            "<tool_name>a&lt;b</tool_name>",
            "<tool_name>&#60;</tool_name>",
            "<tool_name>&#x3c;</tool_name>",
            "<tool_name><![CDATA[a<b]]></tool_name>",
            "<tool_name><![CDATA[a</tool_name>",
            "<tool_name>a</tool_name ></tool_name>",
            "<tool_name>a<![CDAT</tool_name>",
        })
        void aLessThanSignInTheValueMeansNoName(String content) {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, content)).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void argumentsBeforeToolNameMeansNoName() {
            for (String content : List.of(
                    "<arguments>{}</arguments><tool_name>x</tool_name>",
                    "<arguments x=\"1\"><tool_name>x</tool_name></arguments>",
                    "<server_name>s</server_name><arguments/><tool_name>x</tool_name>",
                    "<argumentsX><tool_name>x</tool_name>")) {
                ToolNameSniffer sniffer = new ToolNameSniffer();
                assertThat(feed(sniffer, content)).as(content).isNull();
                assertThat(sniffer.isDone()).as(content).isTrue();
            }
        }

        @Test
        void argumentsDecidesTheMomentItsTenCharactersComplete() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, "<argument")).isNull();
            assertThat(sniffer.isDone()).isFalse();
            assertThat(feed(sniffer, "s")).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void argumentsAfterToolNameDoesNotMatter() {
            assertThat(nameOf("<tool_name>x</tool_name><arguments><tool_name>y</tool_name></arguments>"))
                    .isEqualTo("x");
            assertThat(nameOf("<tool_name>x</tool_name><tool_name>y</tool_name>")).isEqualTo("x");
        }

        @Test
        void onlyTheExactTagsCount() {
            assertThat(nameOf("<Tool_Name>x</Tool_Name>")).isNull();
            assertThat(nameOf("<tool_name a=\"1\">x</tool_name>")).isNull();
            assertThat(nameOf("<tool_name >x</tool_name>")).isNull();
            assertThat(nameOf("<argument>a</argument><tool_name>x</tool_name>")).isEqualTo("x");
            assertThat(nameOf("<<tool_name>x</tool_name>")).isEqualTo("x");
            assertThat(nameOf("<tool<tool_name>x</tool_name>")).isEqualTo("x");
        }

        @Test
        void closeTagBeforeOpenTagIsIgnored() {
            assertThat(nameOf("<a></tool_name><tool_name>x</tool_name>")).isEqualTo("x");
        }

        @Test
        void tagTextCountsWhereverItIsEvenInsideAnEarlierCdataSection() {
            // The spec matches exact text, not elements: the first "<tool_name>" is the one in
            // the CDATA, so the value runs from there and holds a '<'. The full parse decides.
            assertThat(nameOf("<note><![CDATA[<tool_name>]]></note><tool_name>x</tool_name>")).isNull();
            assertThat(nameOf("<note><![CDATA[<arguments>]]></note><tool_name>x</tool_name>")).isNull();
        }
    }

    @Nested
    class Lifecycle {

        @Test
        void nameIsReportedOnceAndThenFeedingIsANoOp() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            String content = "{\"name\": \"x\"}";
            assertThat(feed(sniffer, content)).isEqualTo("x");
            assertThat(sniffer.isDone()).isTrue();
            assertThat(feed(sniffer, content)).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void resetStartsANewBlock() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThat(feed(sniffer, "{\"name\": \"a\"}")).isEqualTo("a");
            sniffer.reset();
            assertThat(sniffer.isDone()).isFalse();
            assertThat(feed(sniffer, "<tool_name>b</tool_name>")).isEqualTo("b");
            sniffer.reset();
            assertThat(feed(sniffer, "{\"na")).isNull();
            sniffer.reset(); // mid-block: nothing of the old block survives
            assertThat(feed(sniffer, "me\": \"c\"")).isNull();
            assertThat(sniffer.isDone()).isTrue();
        }

        @Test
        void feedScansOnlyTheGivenRange() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            String text = "xx{\"name\": \"a\"}yy";
            assertThat(sniffer.feed(text, 2, 13)).isNull();
            assertThat(sniffer.feed(text, 13, 14)).isEqualTo("a");
            assertThat(new ToolNameSniffer().feed(text, 2, 2)).isNull();
        }

        @Test
        void feedRejectsABadRange() {
            ToolNameSniffer sniffer = new ToolNameSniffer();
            assertThatThrownBy(() -> sniffer.feed("abc", 2, 1)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> sniffer.feed("abc", 0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
        }

        @Test
        void acceptsAnyCharSequence() {
            StringBuilder text = new StringBuilder("{\"tool\": \"sb\"}");
            assertThat(new ToolNameSniffer().feed(text, 0, text.length())).isEqualTo("sb");
        }
    }

    // ---- Properties: any split of generated contents (jqwik) ----

    /**
     * Chunk-boundary invariance: whatever the split, the same name comes from the feed() call
     * holding its last character (the JSON closing quote, the {@code >} of {@code </tool_name>}),
     * and nothing from any other call; feeding the whole text at once agrees.
     */
    @Provide
    Arbitrary<ToolContentGenerator.ToolContent> toolContents() {
        return Arbitraries.randomValue(random -> {
            ToolContentGenerator generator = new ToolContentGenerator(random);
            return random.nextBoolean() ? generator.json() : generator.xml();
        });
    }

    @Property(tries = 2000)
    void sameNameFromTheSameFeedForAnySplit(@ForAll("toolContents") ToolContentGenerator.ToolContent content,
            @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 1_000_000) Integer> cuts) {
        String text = content.text();
        Statistics.collect(content.json() ? "json" : "xml", content.name() != null ? "name" : "no name");
        Statistics.coverage(coverage -> {
            for (String form : List.of("json", "xml")) {
                coverage.check(form, "name").percentage(p -> p > 25);
                coverage.check(form, "no name").percentage(p -> p > 3);
            }
        });

        // Cuts anywhere in [0, length]; repeated cuts make empty pieces, which the processor may feed too.
        List<Integer> bounds = new ArrayList<>();
        bounds.add(0);
        cuts.stream().map(cut -> cut % (text.length() + 1)).sorted().forEach(bounds::add);
        bounds.add(text.length());

        ToolNameSniffer sniffer = new ToolNameSniffer();
        for (int piece = 0; piece + 1 < bounds.size(); piece++) {
            int from = bounds.get(piece);
            int to = bounds.get(piece + 1);
            boolean holdsDecisive = content.decisive() >= from && content.decisive() < to;
            assertThat(sniffer.feed(text, from, to))
                    .as("feed [%d, %d) of %s", from, to, content)
                    .isEqualTo(holdsDecisive ? content.name() : null);
        }
        if (content.name() != null) {
            assertThat(sniffer.isDone()).isTrue();
        }

        ToolNameSniffer whole = new ToolNameSniffer();
        assertThat(whole.feed(text, 0, text.length())).isEqualTo(content.name());
        assertThat(whole.isDone()).isEqualTo(sniffer.isDone());

        ToolNameSniffer byChar = new ToolNameSniffer();
        for (int i = 0; i < text.length(); i++) {
            assertThat(byChar.feed(text, i, i + 1)).as("char %d of %s", i, content)
                    .isEqualTo(i == content.decisive() ? content.name() : null);
        }
    }

    /** The generator's expected names are what real parsers read: the property checks the sniffer, not the generator. */
    @Property(tries = 500)
    void generatedNamesAreWhatAFullParseReads(@ForAll("toolContents") ToolContentGenerator.ToolContent content) throws Exception {
        if (content.name() == null) {
            return;
        }
        if (content.json()) {
            JsonNode tree = Jackson.JSON.readTree(content.body());
            assertThat(tree.get(content.nameKey()).stringValue(null)).isEqualTo(content.name());
        } else {
            Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new InputSource(new StringReader("<root>" + content.body() + "</root>")));
            String value = document.getElementsByTagName("tool_name").item(0).getTextContent();
            assertThat(ToolContentGenerator.trim(value)).isEqualTo(content.name());
        }
    }
}
