package dev.bellows.json.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
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

    @Test
    void bindingARecordAllocatesNoSpreaderPerCall() throws Exception {
        // Jackson 3's own call (invokeWithArguments) spreads the arguments anew every time: 648
        // bytes per bind of this record against 384 by reflection (JDK 25, interpreted or
        // compiled alike). The bound leaves room for the JIT's and the JDK's differences.
        // com.sun.management's interface, reached by reflection: the module under test does not read jdk.management
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        Object threads = ManagementFactory.getThreadMXBean();
        JsonNode node = Jackson.JSON.readTree("{\"a\":2,\"b\":3}");
        ObjectReader reader = Jackson.ARGUMENTS.forType(Add.class);
        int sum = 0;
        for (int i = 0; i < 2_000; i++) {
            sum += reader.<Add>readValue(node).a();
        }
        int binds = 5_000;
        long before = (long) allocated.invoke(threads);
        for (int i = 0; i < binds; i++) {
            sum += reader.<Add>readValue(node).b();
        }
        long perBind = ((long) allocated.invoke(threads) - before) / binds;
        assertThat(sum).isEqualTo(2_000 * 2 + binds * 3);
        assertThat(perBind).as("bytes allocated per bind").isLessThan(520);
    }
}
