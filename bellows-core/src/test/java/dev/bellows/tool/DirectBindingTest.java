package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.bellows.json.internal.Jackson;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A plain record is bound by calling its constructor ({@link DirectBinding}); whatever it binds
 * must be what Jackson binds, and whatever it cannot be sure of it leaves to Jackson.
 */
class DirectBindingTest {

    record Add(int a, int b) {
    }

    record Plain(String text, Integer count, long big, Long boxed, boolean flag, Boolean maybe,
                 Optional<String> note, Optional<Integer> limit, Optional<Long> id, Optional<Boolean> strict) {
    }

    record Positive(int value) {
        Positive {
            if (value <= 0) {
                throw new IllegalArgumentException("must be positive");
            }
        }
    }

    record Renamed(@JsonProperty("other_name") String name) {
    }

    record Nested(Add add, List<String> labels) {
    }

    record Decimal(double value) {
    }

    private static final String FULL = "{\"text\":\"t\",\"count\":1,\"big\":12345678901,\"boxed\":2,\"flag\":true,"
            + "\"maybe\":false,\"note\":\"n\",\"limit\":3,\"id\":4,\"strict\":true}";

    /** Binds directly; the record must equal Jackson's binding of the same arguments. */
    private static <R extends Record> R sameAsJackson(Class<R> type, String json) {
        JsonNode arguments = Jackson.JSON.readTree(json);
        R direct = DirectBinding.of(type).bind(arguments);
        assertThat(direct).as(json).isNotNull();
        assertThat(direct).as(json).isEqualTo(Jackson.ARGUMENTS.forType(type).readValue(arguments));
        return direct;
    }

    @Test
    void plainRecordsAreBoundAsJacksonBindsThem() throws Exception {
        assertThat(sameAsJackson(Add.class, "{\"a\":2,\"b\":3}")).isEqualTo(new Add(2, 3));
        assertThat(sameAsJackson(Add.class, "{\"b\":3,\"a\":-7}")).isEqualTo(new Add(-7, 3));
        sameAsJackson(Plain.class, FULL);
        Plain absent = sameAsJackson(Plain.class, "{\"text\":\"\",\"count\":0,\"big\":1,\"boxed\":-2,\"flag\":false,"
                + "\"maybe\":true}");
        assertThat(absent.note()).isEmpty();
        assertThat(absent.limit()).isEmpty();
        assertThat(sameAsJackson(Positive.class, "{\"value\":5}")).isEqualTo(new Positive(5));
    }

    @Test
    void whatItCannotBeSureOfIsLeftToJackson() {
        DirectBinding<Plain> plain = DirectBinding.of(Plain.class);
        DirectBinding<Add> add = DirectBinding.of(Add.class);
        for (String json : new String[] {
                "{\"a\":2}",                        // a missing int: Jackson's default or error
                "{\"a\":2,\"b\":null}",             // a null
                "{\"a\":2,\"b\":3,\"c\":4}",        // a property the record lacks
                "{\"a\":2,\"b\":3.0}",              // a number Jackson converts
                "{\"a\":2,\"b\":12345678901}",      // a long for an int: Jackson's range error
                "{\"a\":2,\"b\":\"3\"}",            // a string for an int
                "[1,2]"}) {
            assertThat(add.bind(Jackson.JSON.readTree(json))).as(json).isNull();
        }
        assertThat(plain.bind(Jackson.JSON.readTree(FULL.replace("\"note\":\"n\"", "\"note\":null")))).isNull();
        assertThat(plain.bind(Jackson.JSON.readTree(FULL.replace("\"text\":\"t\"", "\"text\":5")))).isNull();
        // the constructor refuses: Jackson calls it again and reports its words
        assertThat(DirectBinding.of(Positive.class).bind(Jackson.JSON.readTree("{\"value\":-1}"))).isNull();
    }

    @Test
    void recordsBeyondPlainAreJacksonsAlone() {
        assertThat(DirectBinding.of(Renamed.class)).isNull();
        assertThat(DirectBinding.of(Nested.class)).isNull();
        assertThat(DirectBinding.of(Decimal.class)).isNull();
    }

    @Test
    void aTypedToolKeepsJacksonsErrorsForWhatItLeavesToIt() throws Exception {
        TypedTool<Positive, Object> tool = TypedTool.of("positive", "Takes a positive number.", Positive.class,
                (context, value) -> ToolResult.of(value.value()));
        assertThat(tool.bind(Jackson.JSON.readTree("{\"value\":3}"))).isEqualTo(new Positive(3));
        assertThatThrownBy(() -> tool.bind(Jackson.JSON.readTree("{\"value\":-1}")))
                .isInstanceOf(InvalidArgumentsException.class).hasMessageContaining("must be positive");
    }

    @Test
    void aTypedToolBindsAPlainRecordWithoutJacksonsSetUpPerCall() throws Exception {
        // Jackson's bind of Add took about 380 bytes (ArgumentsBindingTest); the direct one the
        // record and its constructor's arguments. The bound leaves room for the JIT's differences.
        TypedTool<Add, Object> tool = TypedTool.of("add", "Adds two numbers.", Add.class,
                (context, add) -> ToolResult.of(add.a() + add.b()));
        JsonNode arguments = dev.bellows.json.internal.FrozenJson.freeze(Jackson.JSON.readTree("{\"a\":2,\"b\":3}"));
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        Object threads = ManagementFactory.getThreadMXBean();
        Object last = null;
        for (int i = 0; i < 20_000; i++) {
            last = tool.bind(arguments);
        }
        int binds = 20_000;
        long before = (long) allocated.invoke(threads);
        for (int i = 0; i < binds; i++) {
            last = tool.bind(arguments);
        }
        long perBind = ((long) allocated.invoke(threads) - before) / binds;
        assertThat(last).isEqualTo(new Add(2, 3));
        assertThat(perBind).as("bytes allocated per bind").isLessThan(200);
    }
}
