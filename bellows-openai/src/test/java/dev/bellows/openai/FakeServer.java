package dev.bellows.openai;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * An HTTP/1.1 endpoint on a raw socket on 127.0.0.1, for byte-level control of what a vendor
 * sends. Connection n is answered by script n (the last script answers all later ones); every
 * request is recorded. Closing the server releases stalled scripts and closes every socket.
 */
final class FakeServer implements AutoCloseable {

    interface Script {
        void run(Conn conn) throws Exception;
    }

    /** One recorded request: header names in lower case. */
    record Request(String requestLine, Map<String, List<String>> headers, String body) {
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null ? null : values.get(0);
        }
    }

    private final ServerSocket server;
    private final List<Script> scripts;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch stalled = new CountDownLatch(1);

    FakeServer(Script... scripts) throws IOException {
        this.scripts = List.of(scripts);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("fake-server-accept").start(this::acceptLoop);
    }

    /** A server answering every request with one SSE body (text sent as given, then the end). */
    static FakeServer sse(String body) throws IOException {
        return new FakeServer(conn -> {
            conn.sseHead();
            conn.send(body);
            conn.end();
        });
    }

    private void acceptLoop() {
        int n = 0;
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException closed) {
                return;
            }
            sockets.add(socket);
            Script script = scripts.get(Math.min(n++, scripts.size() - 1));
            Thread.ofVirtual().start(() -> {
                try (socket) {
                    requests.add(readRequest(socket.getInputStream()));
                    script.run(new Conn(socket));
                } catch (Exception ignored) {
                    // the client went away
                }
            });
        }
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1");
    }

    List<Request> requests() {
        return requests;
    }

    /** Waits until a script called {@link Conn#stall()}. */
    void awaitStall() throws InterruptedException {
        stalled.await();
    }

    final class Conn {
        final Socket socket;
        final OutputStream out;

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        /** 200, text/event-stream, chunked transfer coding, extra header lines as given. */
        void sseHead(String... headerLines) throws IOException {
            StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                    + "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n");
            for (String line : headerLines) {
                head.append(line).append("\r\n");
            }
            write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        }

        /** One chunk of the chunked body, flushed: one network write. */
        void send(String text) throws IOException {
            sendBytes(text.getBytes(StandardCharsets.UTF_8));
        }

        void sendBytes(byte[] bytes) throws IOException {
            if (bytes.length == 0) {
                return;
            }
            write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            write(bytes);
            write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }

        /** The last chunk: a clean end of the body. */
        void end() throws IOException {
            write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
        }

        /**
         * Ends the connection mid-body, without the last chunk: a broken stream. A FIN, not a
         * reset, so that everything sent before arrives (a reset may discard unread data).
         */
        void cut() throws IOException {
            socket.shutdownOutput();
        }

        /** A complete non-streaming answer. */
        void respond(int status, String reason, String contentType, String body, String... headerLines)
                throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            StringBuilder head = new StringBuilder("HTTP/1.1 " + status + " " + reason + "\r\n");
            if (contentType != null) {
                head.append("Content-Type: ").append(contentType).append("\r\n");
            }
            head.append("Content-Length: ").append(bytes.length).append("\r\nConnection: close\r\n");
            for (String line : headerLines) {
                head.append(line).append("\r\n");
            }
            write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            write(bytes);
            socket.shutdownOutput();
        }

        /** Blocks until the server is closed, sending nothing. */
        void stall() throws InterruptedException {
            stalled.countDown();
            release.await();
        }

        private void write(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }
    }

    private static Request readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("request head incomplete");
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        k -> new ArrayList<>()).add(lines[i].substring(colon + 1).strip());
            }
        }
        int length = headers.containsKey("content-length") ? Integer.parseInt(headers.get("content-length").get(0)) : 0;
        String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
        return new Request(lines[0], headers, body);
    }

    @Override
    public void close() throws IOException {
        release.countDown();
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
