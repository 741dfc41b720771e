package dev.bellows.bench.loop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A mock model ({@link LeanMock}, or {@link JdkServerMock} with either framing) in a JVM of
 * its own, started and stopped by the harness: the same java and class path as the harness,
 * its own heap, optionally pinned to some cores with {@code taskset}. The model then shares
 * no heap, threads or collector with the sessions it serves, only the machine's cores (unless
 * pinned apart).
 */
final class MockProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    /** The lean mock. */
    MockProcess(int toolCalls, int bursts, long pauseMillis, String heap, String cpus) throws IOException {
        this("lean", toolCalls, bursts, pauseMillis, heap, cpus);
    }

    /**
     * @param mock  {@code lean}, {@code jdk-length} or {@code jdk-chunked} (as
     *              {@code LoopComparison --mock} names them)
     * @param heap  the mock's {@code -Xmx}, e.g. {@code 1g}
     * @param cpus  a {@code taskset -c} list such as {@code 1}, or null to let it run anywhere
     */
    MockProcess(String mock, int toolCalls, int bursts, long pauseMillis, String heap, String cpus)
            throws IOException {
        List<String> mockArguments = switch (mock) {
            case "lean" -> List.of(LeanMock.class.getName());
            case "jdk-length" -> List.of(JdkServerMock.class.getName(), "--framing", "length");
            case "jdk-chunked" -> List.of(JdkServerMock.class.getName(), "--framing", "chunked");
            default -> throw new IllegalArgumentException("mock is lean, jdk-length or jdk-chunked, not " + mock);
        };
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx" + heap, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path")));
        command.addAll(mockArguments);
        command.addAll(List.of("--tool-calls", Integer.toString(toolCalls), "--bursts",
                Integer.toString(bursts), "--pause-ms", Long.toString(pauseMillis)));
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        String line = out.readLine();
        if (line == null || !line.startsWith("listening ")) {
            process.destroyForcibly();
            throw new IOException("the mock process did not start: " + command + " printed " + line);
        }
        port = Integer.parseInt(line.substring("listening ".length()).strip());
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port + "/v1";
    }

    /** The mock's counters, read over HTTP: connections, requests, requestBodyBytes. */
    Map<String, Long> stats() throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /stats HTTP/1.1\r\nHost: mock\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            int length = -1;
            for (String header = reader.readLine(); header != null && !header.isEmpty(); header = reader.readLine()) {
                if (header.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                    length = Integer.parseInt(header.substring(15).strip());
                }
            }
            char[] body = new char[length];
            for (int read = 0; read < length; ) {
                int n = reader.read(body, read, length - read);
                if (n < 0) {
                    throw new IOException("the mock's /stats ended early");
                }
                read += n;
            }
            Map<String, Long> stats = new HashMap<>();
            for (String line : new String(body).split("\n")) {
                int equals = line.indexOf('=');
                stats.put(line.substring(0, equals), Long.parseLong(line.substring(equals + 1)));
            }
            return stats;
        }
    }

    long requests() throws IOException {
        return stats().get("requests");
    }

    long pid() {
        return process.pid();
    }

    /** CPU time the mock process has used so far (read from the OS), in nanoseconds. */
    long cpuNanos() {
        return process.toHandle().info().totalCpuDuration().map(Duration::toNanos)
                .orElseThrow(() -> new IllegalStateException("the OS does not report the mock's CPU time"));
    }

    /** Ends the mock: its standard input closes, and it exits. */
    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
