package dev.bellows.bench.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kernel's view of the connections clients keep to a port: each open one, by its local port. */
class OpenConnectionsTest {

    @Test
    void countsTheClientEndsThatAreOpen() throws Exception {
        assumeTrue(OpenConnections.available(), "Linux's /proc/net/tcp");
        try (ServerSocket server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
            List<Socket> clients = new ArrayList<>();
            List<Socket> accepted = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    clients.add(new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort()));
                    accepted.add(server.accept());
                }
                assertThat(OpenConnections.clientPorts(server.getLocalPort()))
                        .containsExactlyInAnyOrderElementsOf(clients.stream().map(Socket::getLocalPort).toList());
                Socket closed = clients.removeFirst();
                closed.close();
                assertThat(OpenConnections.clientPorts(server.getLocalPort()))
                        .containsExactlyInAnyOrderElementsOf(clients.stream().map(Socket::getLocalPort).toList());
            } finally {
                for (Socket socket : clients) {
                    socket.close();
                }
                for (Socket socket : accepted) {
                    socket.close();
                }
            }
        }
    }
}
