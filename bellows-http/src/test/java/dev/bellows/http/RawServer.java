package dev.bellows.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * A one-connection HTTP server on a raw socket, for byte-level control: it reads the request
 * head and body, then runs the script with the socket's output. Closing it closes the socket.
 */
final class RawServer implements AutoCloseable {

    interface Script {
        void run(OutputStream out, Socket socket) throws Exception;
    }

    private final ServerSocket server;
    private final Thread thread;
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile Socket socket;

    RawServer(Script script) throws IOException {
        server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        thread = Thread.ofPlatform().daemon().start(() -> {
            try (Socket s = server.accept()) {
                socket = s;
                readRequest(s.getInputStream());
                script.run(s.getOutputStream(), s);
            } catch (Exception ignored) {
                // the client went away
            }
        });
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getLocalPort() + path);
    }

    /** For scripts that stall: blocks until the test closes the server. */
    void stall() throws InterruptedException {
        release.await();
    }

    static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static void chunk(OutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    static final String CHUNKED_SSE_HEAD =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return;
            }
            head.append((char) b);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        in.readNBytes(length);
    }

    @Override
    public void close() throws IOException {
        release.countDown();
        Socket s = socket;
        if (s != null) {
            s.close();
        }
        server.close();
    }
}
