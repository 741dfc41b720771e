package dev.bellows.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.stream.StreamChunk;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A server that sends {@code message_stop} before it ends the response body (the chunked
 * terminator follows a moment later): the stream reads that end before it lets the connection
 * go, so every request of a conversation goes on the one kept-alive connection.
 */
class AnthropicKeepAliveTest {

    private static final ChatRequest REQUEST =
            ChatRequest.builder().model("claude-sonnet-4-5").message(Message.user("Hello")).build();

    @Test
    void theConnectionIsKeptAfterMessageStop() throws Exception {
        try (StopFirstServer server = new StopFirstServer();
             AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl()).build()) {
            for (int i = 0; i < 5; i++) {
                StringBuilder text = new StringBuilder();
                try (ChatStream stream = provider.stream(REQUEST)) {
                    for (StreamChunk chunk = stream.next(); chunk != null; chunk = stream.next()) {
                        if (chunk instanceof StreamChunk.Text piece) {
                            text.append(piece.text());
                        }
                    }
                }
                assertThat(text).hasToString("Hi " + i);
            }
            assertThat(server.accepted.get()).isEqualTo(1);
        }
    }

    private static final class StopFirstServer implements AutoCloseable {
        final AtomicInteger accepted = new AtomicInteger();
        private final AtomicInteger served = new AtomicInteger();
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

        StopFirstServer() throws IOException {
            Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        accepted.incrementAndGet();
                        Thread.ofPlatform().daemon().start(() -> serve(socket));
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getLocalPort() + "/v1";
        }

        private void serve(Socket socket) {
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                while (readRequest(in)) {
                    int n = served.getAndIncrement();
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    chunk(out, DocsStreams.MESSAGE_START + DocsStreams.TEXT_BLOCK_START + DocsStreams.textDelta(0, "Hi " + n)
                            + DocsStreams.blockStop(0) + DocsStreams.messageDelta("end_turn", 3) + DocsStreams.MESSAGE_STOP);
                    out.flush();
                    Thread.sleep(20);   // the body's end comes after the client has read message_stop
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            } catch (IOException | InterruptedException gone) {
                // the client dropped the connection
            }
        }

        private static void chunk(OutputStream out, String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }

        private static boolean readRequest(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return false;
                }
                head.append((char) b);
            }
            int length = 0;
            for (String line : head.toString().split("\r\n")) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).strip());
                }
            }
            in.readNBytes(length);
            return true;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
