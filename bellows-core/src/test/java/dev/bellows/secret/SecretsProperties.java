package dev.bellows.secret;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class SecretsProperties {

    static final String TOKEN = "tok-3f9a1c77e2";
    static final String OTHER = "other-secret-value";

    static {
        Secrets.register("Bearer " + TOKEN);
        Secrets.register(OTHER);
    }

    @Provide
    Arbitrary<List<String>> pieces() {
        Arbitrary<String> piece = Arbitraries.oneOf(Arbitraries.strings().withChars("abc -tok3f9").ofMaxLength(6),
                Arbitraries.of(TOKEN, OTHER, "tok-3f9", "a1c77e2", "other-", "secret-value", "Bearer "));
        return piece.list().ofMaxSize(12);
    }

    @Property
    void a_stream_cut_anywhere_shows_what_the_whole_text_redacted_shows(@ForAll("pieces") List<String> pieces) {
        Secrets.Streaming stream = Secrets.streaming();
        StringBuilder shown = new StringBuilder();
        for (String piece : pieces) {
            shown.append(stream.next(piece));
        }
        shown.append(stream.flush());
        String whole = String.join("", pieces);
        assertThat(shown.toString()).isEqualTo(Secrets.redact(whole)).doesNotContain(TOKEN).doesNotContain(OTHER);
    }

    @Property
    void no_registered_value_survives_redaction(@ForAll("pieces") List<String> pieces) {
        String redacted = Secrets.redact(String.join("", pieces));
        assertThat(Secrets.appearIn(redacted)).isFalse();
    }

    @Example
    void a_credential_with_a_scheme_is_redacted_whole_and_alone_and_short_values_are_not_registered() {
        assertThat(Secrets.redact("sent Bearer " + TOKEN + "; echoed " + TOKEN))
                .isEqualTo("sent [REDACTED]; echoed [REDACTED]");
        Secrets.register("true");
        Secrets.register((String) null);
        Secrets.register("   ");
        assertThat(Secrets.redact("true or false")).isEqualTo("true or false");
    }
}
