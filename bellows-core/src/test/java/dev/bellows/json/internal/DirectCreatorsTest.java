package dev.bellows.json.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.exc.ValueInstantiationException;

class DirectCreatorsTest {

    record Add(int a, int b) {
    }

    private record Hidden(String name, int times) {
    }

    record Checked(int low, int high) {
        Checked {
            if (low > high) {
                throw new IllegalArgumentException("low is above high");
            }
        }
    }

    @Test
    void recordsOfSeveralPropertiesBindAsJacksonBindsThem() {
        assertThat(Jackson.ARGUMENTS.forType(Add.class).<Add>readValue("{\"a\":2,\"b\":3}")).isEqualTo(new Add(2, 3));
        assertThat(Jackson.JSON.readValue("{\"times\":2,\"name\":\"x\"}", Hidden.class)).isEqualTo(new Hidden("x", 2));
        assertThat(Jackson.JSON.readValue("{\"low\":1,\"high\":2}", Checked.class)).isEqualTo(new Checked(1, 2));
    }

    @Test
    void aConstructorsOwnRefusalIsJacksonsInstantiationProblemWithTheConstructorsWords() {
        assertThatThrownBy(() -> Jackson.JSON.readValue("{\"low\":3,\"high\":2}", Checked.class))
                .isInstanceOf(ValueInstantiationException.class)
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessage("low is above high");
    }
}
