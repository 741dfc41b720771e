package dev.bellows.cli;

import io.grpc.Server;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.api.testservice.v1.LockTimeSkippingRequest;
import io.temporal.api.testservice.v1.TestServiceGrpc;
import io.temporal.api.testservice.v1.UnlockTimeSkippingRequest;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's own Java test server (io.temporal:temporal-test-server), port-bound on 127.0.0.1
 * and a free port, in the test's JVM; workers and clients are separate processes. Real time,
 * no time skipping (heartbeat timeouts fire as on a cluster), except within {@link
 * #skippingIdleTime()}.
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

    /**
     * Lets the server's clock jump to its next timer whenever nothing is in flight (no workflow
     * task, no activity, no query: each holds the clock to real time while it is outstanding, a
     * heartbeat timeout with it), until the returned handle is closed. A run waiting in a durable
     * timer, with no worker busy, then goes on at once, as it would once the timer fired.
     */
    AutoCloseable skippingIdleTime() {
        ManagedChannel channel = ManagedChannelBuilder.forTarget(address()).usePlaintext().build();
        TestServiceGrpc.TestServiceBlockingStub test = TestServiceGrpc.newBlockingStub(channel);
        test.unlockTimeSkipping(UnlockTimeSkippingRequest.getDefaultInstance());
        return () -> {
            try {
                test.lockTimeSkipping(LockTimeSkippingRequest.getDefaultInstance());
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        };
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
