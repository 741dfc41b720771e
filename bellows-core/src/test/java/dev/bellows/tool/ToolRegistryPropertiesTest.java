package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.tool.ToolRegistryTest.FakeTool;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;

/** Every registered tool is found where it was registered; a name one typo away is suggested. */
class ToolRegistryPropertiesTest {

    @Property(tries = 200)
    void everyRegisteredToolIsFoundWhereItWasRegistered(
            @ForAll @Size(min = 1, max = 30) @UniqueElements List<@From("names") String> names,
            @ForAll @IntRange(min = 1, max = 4) int servers) throws ToolException {
        ToolRegistry registry = new ToolRegistry();
        List<RegisteredTool> expected = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String server = i % servers == 0 ? "local" : "s" + (i % servers);
            Tool tool = new FakeTool(names.get(i));
            registry.register(server, tool);
            expected.add(new RegisteredTool(server, tool));
        }
        for (RegisteredTool registered : expected) {
            assertThat(registry.lookup(registered.serverName(), registered.toolName())).isSameAs(registered.tool());
        }
        assertThat(registry.tools()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(registry.tools()).hasSize(names.size());
    }

    @Property(tries = 500)
    void aNameOneTypoAwayIsSuggested(@ForAll("names") String name, @ForAll("typo") Typo typo) {
        String asked = typo.apply(name);
        Assume.that(!asked.equals(name) && !asked.isEmpty());
        ToolRegistry registry = new ToolRegistry().register(new FakeTool(name)).register(new FakeTool("zzzzzzzzzzzzzzzzzzzz"));

        assertThatThrownBy(() -> registry.lookup("local", asked))
                .isInstanceOf(UnknownToolException.class)
                .hasMessageStartingWith("unknown tool \"" + asked + "\" on server \"local\" (did you mean \"" + name + "\"?)");
    }

    @Property(tries = 500)
    void distanceIsSymmetricAndZeroOnlyForEqualNamesIgnoringCase(@ForAll("names") String a, @ForAll("names") String b) {
        assertThat(EditDistance.between(a, b)).isEqualTo(EditDistance.between(b, a));
        assertThat(EditDistance.between(a, a.toUpperCase())).isZero();
        assertThat(EditDistance.between(a, b) == 0).isEqualTo(a.equalsIgnoreCase(b));
        assertThat(EditDistance.between(a, b)).isLessThanOrEqualTo(Math.max(a.length(), b.length()));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz_").ofMinLength(2).ofMaxLength(16);
    }

    /** One edit: insert, delete, replace or swap at a position. */
    record Typo(int kind, int position, char letter) {
        String apply(String name) {
            int at = position % (name.length() + 1);
            return switch (kind) {
                case 0 -> name.substring(0, at) + letter + name.substring(at);
                case 1 -> at < name.length() ? name.substring(0, at) + name.substring(at + 1) : name;
                case 2 -> at < name.length() ? name.substring(0, at) + letter + name.substring(at + 1) : name;
                default -> at + 1 < name.length()
                        ? name.substring(0, at) + name.charAt(at + 1) + name.charAt(at) + name.substring(at + 2)
                        : name;
            };
        }
    }

    @Provide
    Arbitrary<Typo> typo() {
        return Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 100),
                Arbitraries.chars().with("abcdefghijklmnopqrstuvwxyz-_".toCharArray()))
                .as(Typo::new);
    }

    @Example
    void examples() {
        assertThat(EditDistance.between("reed_file", "read_file")).isEqualTo(1);
        assertThat(EditDistance.between("raed_file", "read_file")).isEqualTo(1);
        assertThat(EditDistance.between("", "abc")).isEqualTo(3);
        assertThat(EditDistance.between("kitten", "sitting")).isEqualTo(3);
        assertThat(Set.of(EditDistance.tolerance("ab"), EditDistance.tolerance("abcdef"), EditDistance.tolerance("a".repeat(40))))
                .containsExactlyInAnyOrder(1, 2, 3);
    }
}
