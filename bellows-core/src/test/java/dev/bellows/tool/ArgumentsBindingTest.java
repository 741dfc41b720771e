package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.json.internal.Jackson;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;

/** What binding a tool's arguments to its record costs: once per tool call. */
class ArgumentsBindingTest {

    /** Package-private, in another package than the mapper's: its constructor is made accessible, as Jackson does. */
    record Add(int a, int b) {
    }

    /** One property: Jackson 3 spreads it all the same (the loop's own task_completion has one). */
    record Answer(String result) {
    }

    @Test
    void bindingARecordAllocatesNoSpreaderPerCall() throws Exception {
        assertThat(bytesPerBind(Add.class, "{\"a\":2,\"b\":3}")).as("bytes allocated per bind").isLessThan(520);
    }

    @Test
    void bindingARecordOfOnePropertyAllocatesNoSpreaderPerCallEither() throws Exception {
        assertThat(bytesPerBind(Answer.class, "{\"result\":\"5\"}")).as("bytes allocated per bind").isLessThan(520);
    }

    private static long bytesPerBind(Class<?> type, String json) throws Exception {
        // Jackson 3's own call of a record's constructor (invokeWithArguments) spreads the
        // arguments anew every time: 648 bytes per bind of Add and 640 of Answer, against 384
        // and 376 by reflection (JDK 25, interpreted or compiled alike). The bound of 520 leaves
        // room for the JIT's and the JDK's differences. com.sun.management's interface is
        // reached by reflection: the module under test does not read jdk.management.
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        Object threads = ManagementFactory.getThreadMXBean();
        JsonNode node = Jackson.JSON.readTree(json);
        ObjectReader reader = Jackson.ARGUMENTS.forType(type);
        Object last = null;
        for (int i = 0; i < 2_000; i++) {
            last = reader.readValue(node);
        }
        int binds = 5_000;
        long before = (long) allocated.invoke(threads);
        for (int i = 0; i < binds; i++) {
            last = reader.readValue(node);
        }
        long perBind = ((long) allocated.invoke(threads) - before) / binds;
        assertThat(last).isEqualTo(Jackson.JSON.readValue(json, type));
        return perBind;
    }
}
