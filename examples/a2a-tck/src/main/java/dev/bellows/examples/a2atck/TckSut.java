package dev.bellows.examples.a2atck;

import dev.bellows.a2a.AgentCard;
import dev.bellows.a2a.AgentProvider;
import dev.bellows.a2a.AgentSkill;
import dev.bellows.a2a.server.A2aServer;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The kit's system under test: {@link TckExecutor} served over A2A 1.0 (JSON-RPC and
 * HTTP+JSON, streaming, push notifications) on 127.0.0.1:PORT until the process is stopped.
 * Webhooks are called on this machine only: the kit's own receiver listens on loopback, and the
 * configs it sets to other hosts are kept but never called.
 */
public final class TckSut {

    private TckSut() {
    }

    /** The system under test, serving on 127.0.0.1:{@code port} (0: a free one); close it, then {@link A2aServer#shutdown}. */
    static JettyAgentServer start(A2aServer a2a, int port) throws java.io.IOException {
        return JettyAgentServer.start(AgentServer.builder().mount(a2a).build(), "127.0.0.1", port);
    }

    /** The kit's agent: its card, the executor, push notifications delivered on this machine only. */
    static A2aServer a2a() {
        AgentCard card = new AgentCard("Bellows A2A TCK system under test",
                "Answers the A2A conformance kit's scenarios, chosen by each message id's prefix.", null,
                new AgentProvider("https://github.com/a2aproject/a2a-tck", "Bellows"), "1.0.0", null, null, null, null,
                List.of("text/plain", "application/json"), List.of("text/plain", "application/json"),
                List.of(new AgentSkill("tck", "TCK conformance", "Handles the conformance kit's messages", List.of("tck"),
                        null, null, null, null)), null, null);
        return A2aServer.builder(card, new TckExecutor())
                .pushNotifications(true)
                .pushAddresses(InetAddress::isLoopbackAddress)
                .build();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || !args[0].matches("\\d{1,5}")) {
            System.err.println("usage: run PORT");
            System.exit(2);
        }
        A2aServer a2a = a2a();
        try (JettyAgentServer http = start(a2a, Integer.parseInt(args[0]))) {
            System.out.println("A2A system under test on " + http.uri() + " (card " + http.uri().resolve(A2aServer.CARD_PATH) + ")");
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                a2a.shutdown(Duration.ZERO);
                stop.countDown();
            }));
            stop.await();
        }
    }
}
