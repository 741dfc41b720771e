package dev.bellows.memory;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class EstimatingTokenCounterTest {

    private final EstimatingTokenCounter counter = new EstimatingTokenCounter();

    @Test
    void theDocumentedExamples() {
        assertThat(counter.count("")).isZero();
        assertThat(counter.count("a")).isEqualTo(1);
        assertThat(counter.count("Hello, world!")).isEqualTo(4);       // 13 ASCII / 4, rounded up
        assertThat(counter.count("你好世界")).isEqualTo(4);              // one per CJK character
        assertThat(counter.count("Привет")).isEqualTo(3);              // half per other character
        assertThat(counter.count("🙂")).isEqualTo(2);                   // two per supplementary character
    }

    @Test
    void japaneseKoreanAndFullWidthPunctuationCountAsCjk() {
        assertThat(counter.count("ひらがなカタカナ")).isEqualTo(8);
        assertThat(counter.count("안녕하세요")).isEqualTo(5);
        assertThat(counter.count("「。」")).isEqualTo(3);
        assertThat(counter.count("𠀀")).as("Han beyond the BMP").isEqualTo(1);
    }

    @Test
    void mixedTextSumsTheWeightsBeforeRoundingUp() {
        // 4 ASCII (1 token) + 2 Cyrillic (1 token) + 1 CJK (1 token) + "é" (1/2) = 3.5 -> 4
        assertThat(counter.count("abcdжж中é")).isEqualTo(4);
    }

    @Test
    void englishProseIsAboutFourCharactersAToken() {
        String prose = "The quick brown fox jumps over the lazy dog. ".repeat(100);
        assertThat(counter.count(prose)).isEqualTo((prose.length() + 3) / 4);
    }

    @Property
    void appendingTextNeverLowersTheCount(@ForAll String a, @ForAll String b) {
        assertThat(counter.count(a + b)).isGreaterThanOrEqualTo(counter.count(a));
    }

    @Property
    void countsAreNearlyAdditive(@ForAll String a, @ForAll String b) {
        // Unless the join completes a surrogate pair: then two halves become one character.
        Assume.that(a.isEmpty() || !Character.isHighSurrogate(a.charAt(a.length() - 1)));
        int joined = counter.count(a + b);
        int separate = counter.count(a) + counter.count(b);
        assertThat(joined).isBetween(separate - 1, separate);
    }

    @Property
    void nonEmptyTextCostsAtLeastOneTokenAndAtMostTwoPerCodePoint(@ForAll String text) {
        int codePoints = text.codePointCount(0, text.length());
        int count = counter.count(text);
        assertThat(count).isBetween(text.isEmpty() ? 0 : 1, Math.max(0, 2 * codePoints));
    }
}
