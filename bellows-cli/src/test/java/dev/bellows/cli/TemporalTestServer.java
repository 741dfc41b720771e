package dev.bellows.cli;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's own Java test server (io.temporal:temporal-test-server), port-bound on 127.0.0.1
 * and a free port, in the test's JVM; workers and clients are separate processes. Real time,
 * no time skipping: heartbeat timeouts fire as on a cluster.
 */
final class TemporalTestServer implements AutoCloseable {

    private final TestServicesStarter services;
    private final Server server;

    private TemporalTestServer(TestServicesStarter services, Server server) {
        this.services = services;
        this.server = server;
    }

    static TemporalTestServer start() throws IOException {
        TestServicesStarter services = new TestServicesStarter(true, 0);
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
        return new TemporalTestServer(services, builder.build().start());
    }

    /** {@code 127.0.0.1:PORT}, for {@code --temporal}. */
    String address() {
        return "127.0.0.1:" + server.getPort();
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
        services.close();
    }
}
