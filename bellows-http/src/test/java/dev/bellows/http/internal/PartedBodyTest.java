package dev.bellows.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.http.internal.PartedBody;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

class PartedBodyTest {

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** What a publisher hands over, buffer by buffer, once all is requested. */
    private static List<byte[]> buffers(HttpRequest.BodyPublisher publisher) {
        List<byte[]> buffers = new ArrayList<>();
        boolean[] completed = {false};
        publisher.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                byte[] bytes = new byte[item.remaining()];
                item.get(bytes);
                buffers.add(bytes);
            }

            @Override
            public void onError(Throwable throwable) {
                throw new AssertionError(throwable);
            }

            @Override
            public void onComplete() {
                completed[0] = true;
            }
        });
        assertThat(completed[0]).as("the body completed").isTrue();
        return buffers;
    }

    private static byte[] joined(List<byte[]> buffers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        buffers.forEach(out::writeBytes);
        return out.toByteArray();
    }

    @Test
    void aBodyWithCachedPartsIsHandedOverInOneBufferWithTheSameBytes() {
        // The JDK client writes each buffer with a socket write of its own: one buffer, one write.
        byte[] system = ascii("{\"role\":\"system\",\"content\":\"rules\"}");
        byte[] tools = ascii(",\"tools\":[{\"type\":\"function\"}]");
        PartedBody body = new PartedBody(16);
        body.write(ascii("{\"model\":\"m\",\"messages\":["));
        body.cached(system);
        body.write(ascii(",{\"role\":\"user\",\"content\":\"hi\"}]"));
        body.cached(tools);
        body.write('}');
        body.finish();

        String expected = "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"rules\"},"
                + "{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"type\":\"function\"}]}";
        HttpRequest.BodyPublisher publisher = body.publisher();
        assertThat(publisher.contentLength()).isEqualTo(expected.length()).isEqualTo(body.length());
        List<byte[]> buffers = buffers(publisher);
        assertThat(buffers).hasSize(1);
        assertThat(new String(buffers.get(0), StandardCharsets.US_ASCII)).isEqualTo(expected);
        assertThat(body.text()).isEqualTo(expected);
        // the cached encodings themselves are kept as they were given, not changed by the copy
        assertThat(body.cachedParts()[0]).isSameAs(system);
        assertThat(body.cachedParts()[1]).isSameAs(tools);

        // A retry sends the same bytes again, from a new publisher.
        assertThat(joined(buffers(body.publisher()))).isEqualTo(ascii(expected));
    }

    @Test
    void cachedPartsAtTheStartAndTheEndAndEmptyOnesKeepTheirPlaces() {
        PartedBody body = new PartedBody(4);
        body.cached(ascii("[1"));
        body.cached(new byte[0]);
        body.write(ascii(",2"));
        body.cached(ascii(",3]"));
        body.finish();
        List<byte[]> buffers = buffers(body.publisher());
        assertThat(buffers).hasSize(1);
        assertThat(new String(buffers.get(0), StandardCharsets.US_ASCII)).isEqualTo("[1,2,3]");
    }

    @Test
    void aBodyWithoutCachedPartsIsItsBuffer() {
        PartedBody body = new PartedBody(4);
        body.write(ascii("{\"a\":1}"));
        body.finish();
        assertThat(new String(joined(buffers(body.publisher())), StandardCharsets.US_ASCII)).isEqualTo("{\"a\":1}");
        assertThat(body.publisher().contentLength()).isEqualTo(7);
    }
}
