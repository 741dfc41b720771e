package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link Shown#controls}: what reaches a terminal holds no control character but newline and tab. */
class ShownProperties {

    @Provide
    Arbitrary<String> hostile() {
        // Mostly controls, ESC sequences and line ends among ordinary and non-BMP text.
        Arbitrary<String> pieces = Arbitraries.oneOf(
                Arbitraries.chars().range('\u0000', '\u009f').map(String::valueOf),
                Arbitraries.of("\u001b[2J", "\u001b]52;c;aGk=\u0007", "\u001b]0;title\u0007", "\r\n", "\r", "\n", "\t",
                        "\u009b31m", "\u007f", "caf\u00e9", "\ud83d\ude00", "\u4e2d"),
                Arbitraries.strings().ofMaxLength(5));
        return pieces.list().ofMaxSize(40).map(list -> String.join("", list));
    }

    @Property
    void no_control_character_but_newline_and_tab_is_left(@ForAll("hostile") String text) {
        String shown = Shown.controls(text);
        for (char c : shown.toCharArray()) {
            assertThat(Shown.isControl(c)).as("U+%04X in %s", (int) c, shown).isFalse();
        }
    }

    @Property
    void text_without_controls_comes_back_unchanged(@ForAll String text) {
        String clean = text.chars().filter(c -> !Shown.isControl((char) c))
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        assertThat(Shown.controls(clean)).isSameAs(clean);
    }

    @Property
    void line_ends_and_tabs_stay(@ForAll("hostile") String text) {
        String shown = Shown.controls(text);
        String normalized = text.replace("\r\n", "\n");
        assertThat(shown.chars().filter(c -> c == '\n').count()).isEqualTo(normalized.chars().filter(c -> c == '\n').count());
        assertThat(shown.chars().filter(c -> c == '\t').count()).isEqualTo(text.chars().filter(c -> c == '\t').count());
    }

    @Property
    void text_is_filtered_piece_by_piece(@ForAll("hostile") String a, @ForAll("hostile") String b) {
        String first = a.endsWith("\r") ? a + "x" : a; // a CR LF split between pieces is the one exception
        assertThat(Shown.controls(first + b)).isEqualTo(Shown.controls(first) + Shown.controls(b));
    }

    @Property
    void each_control_has_its_readable_mark(@ForAll char c) {
        String expected;
        if (!Shown.isControl(c)) {
            expected = String.valueOf(c);
        } else if (c < 0x20) {
            expected = "^" + (char) (c + 64); // ESC ^[, BEL ^G, NUL ^@, CR ^M
        } else {
            expected = String.format("\\u%04x", (int) c); // DEL and C1, valid in a JSON string too
        }
        assertThat(Shown.controls(String.valueOf(c))).isEqualTo(expected);
    }

    @Property
    void filtering_twice_changes_nothing_more(@ForAll("hostile") String text) {
        String once = Shown.controls(text);
        assertThat(Shown.controls(once)).isEqualTo(once);
    }
}
