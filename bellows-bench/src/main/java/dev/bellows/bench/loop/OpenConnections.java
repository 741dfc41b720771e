package dev.bellows.bench.loop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The TCP connections to a port of 127.0.0.1 that are open right now, as the kernel lists them
 * ({@code /proc/net/tcp} and {@code tcp6}, Linux only): the client's ends that are established,
 * each by its own port. A client's end is in that state from its connect until the client
 * closes it; one the server closed and the client has not yet noticed is {@code CLOSE_WAIT}
 * and not counted. So this is what the clients keep, whatever the server thinks of them.
 */
final class OpenConnections {

    private static final Path[] TABLES = {Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6")};
    /** {@code st} of an established socket in those tables. */
    private static final String ESTABLISHED = "01";

    private OpenConnections() {
    }

    /** True when the kernel's tables can be read here. */
    static boolean available() {
        return Files.isReadable(TABLES[0]);
    }

    /**
     * The local ports of the established client sockets whose peer is {@code serverPort} on a
     * loopback address; empty when the tables cannot be read.
     */
    static Set<Integer> clientPorts(int serverPort) {
        Set<Integer> ports = new HashSet<>();
        String peer = String.format(java.util.Locale.ROOT, ":%04X", serverPort);
        for (Path table : TABLES) {
            String text;
            try {
                text = new String(Files.readAllBytes(table), StandardCharsets.US_ASCII);
            } catch (IOException | UnsupportedOperationException unreadable) {
                continue;
            }
            // each line: "sl: LOCAL_ADDR:PORT REMOTE_ADDR:PORT ST ...", addresses and ports in hex
            for (int start = text.indexOf('\n') + 1, end; start > 0 && start < text.length(); start = end + 1) {
                end = text.indexOf('\n', start);
                if (end < 0) {
                    end = text.length();
                }
                String[] fields = text.substring(start, end).strip().split("\\s+");
                if (fields.length > 3 && fields[3].equals(ESTABLISHED) && fields[2].endsWith(peer)
                        && loopback(fields[2])) {
                    String local = fields[1];
                    ports.add(Integer.parseInt(local.substring(local.indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }

    /** 127.0.0.1 as {@code /proc/net/tcp} writes it, or as an IPv4-mapped address in {@code tcp6}. */
    private static boolean loopback(String address) {
        return address.startsWith("0100007F:") || address.startsWith("0000000000000000FFFF00000100007F:");
    }
}
