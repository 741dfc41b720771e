package dev.bellows.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;

/**
 * A body's generator is taken from those idle between bodies and given back when the body is
 * done: what one body wrote, or left half written, must never reach the next.
 */
class JsonBodyTest {

    private static final byte[] NAME = "{\"name\":".getBytes(StandardCharsets.US_ASCII);

    private static String write(String name, int number) throws IOException {
        try (JsonBody body = new JsonBody(16)) {
            body.raw(NAME);
            body.string(name);
            body.raw(",\"m\":".getBytes(StandardCharsets.US_ASCII));
            JsonGenerator generator = body.generator();
            generator.writeStartObject();
            generator.writeStringProperty("k", name);
            generator.writeNumberProperty("n", number);
            generator.writeEndObject();
            body.raw(',');
            body.strings(List.of("a", "b"));
            body.raw('}');
            return body.finish().text();
        }
    }

    private static String expected(String name, int number) {
        return "{\"name\":\"" + name + "\",\"m\":{\"k\":\"" + name + "\",\"n\":" + number + "},[\"a\",\"b\"]}";
    }

    @Test
    void bodiesOneAfterAnotherEachHoldOnlyTheirOwnBytes() throws IOException {
        for (int i = 0; i < 50; i++) {
            assertThat(write("n" + i, i)).isEqualTo(expected("n" + i, i));
        }
    }

    @Test
    void aBodyLeftInsideAValueOrWithBytesNotFlushedLeavesNothingForTheNext() throws IOException {
        assertThatThrownBy(() -> {
            try (JsonBody body = new JsonBody(16)) {
                body.raw(NAME);
                body.generator().writeStartObject();
                body.generator().writeStringProperty("half", "written");
                throw new IllegalStateException("the provider failed mid-body");
            }
        }).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> {
            try (JsonBody body = new JsonBody(16)) {
                body.raw(NAME);
                body.string("buffered, never flushed");
                throw new IllegalStateException("the provider failed between values");
            }
        }).isInstanceOf(IllegalStateException.class);
        for (int i = 0; i < 20; i++) {
            assertThat(write("after" + i, i)).isEqualTo(expected("after" + i, i));
        }
    }

    @Test
    void bodiesWrittenOnManyThreadsAtOnceKeepTheirOwnBytes() throws Exception {
        List<Callable<Boolean>> writers = new ArrayList<>();
        for (int t = 0; t < 64; t++) {
            String name = "thread" + t + "-" + "x".repeat(t * 50);
            int number = t;
            writers.add(() -> {
                for (int i = 0; i < 100; i++) {
                    if (!write(name, number + i).equals(expected(name, number + i))) {
                        return false;
                    }
                }
                return true;
            });
        }
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Boolean> done : threads.invokeAll(writers)) {
                assertThat(done.get()).isTrue();
            }
        }
    }
}
