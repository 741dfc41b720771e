package dev.bellows.cli;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows temporal-dev}: Temporal's own Java test server (io.temporal:temporal-test-server,
 * the one the tests use), on 127.0.0.1, for trying durable runs on a machine with nothing else
 * installed (docs/temporal.md, "Trying it"). It keeps everything in memory and in real time: the
 * runs are gone when it stops. Prints {@code listening on 127.0.0.1:PORT} once it accepts
 * connections, then serves until SIGINT or SIGTERM.
 */
@Command(name = "temporal-dev",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Serves Temporal's Java test server on 127.0.0.1, to try durable runs (bellows worker, run --temporal).",
                "",
                "In memory: every run is lost when it stops. Prints 'listening on 127.0.0.1:PORT' when ready;"
                        + " serves until interrupted."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:stopped with Ctrl-C (SIGINT) or SIGTERM",
                "1:internal error, or standard output failed",
                "2:a bad option, or a port that cannot be used"})
final class TemporalDevCommand implements Callable<Integer> {

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Option(names = "--port", paramLabel = "N", description = "The port on 127.0.0.1 (default 7233, Temporal's; 0: a free port).")
    int port = 7233;

    @Override
    public Integer call() {
        if (port < 0 || port > 65535) {
            return usage("--port: must be between 0 and 65535 (0: a free port)");
        }
        // lockTimeSkipping: the clock is real time, as on a cluster (heartbeat timeouts fire).
        TestServicesStarter services = new TestServicesStarter(true, 0);
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
        Server server;
        try {
            server = builder.build().start();
        } catch (IOException e) {
            services.close();
            return usage("--port: cannot listen on 127.0.0.1:" + port + ": " + BellowsCommand.oneLine(
                    e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
        }
        String address = "127.0.0.1:" + server.getPort();
        return UntilStopped.serve(root, spec.qualifiedName(), address, () -> stop(server, services), () -> {
            root.stderr.println(spec.qualifiedName() + ": Temporal's Java test server, in memory (runs are lost when it"
                    + " stops); next: bellows worker --temporal " + address + " --model ... , then bellows run --temporal "
                    + address + " \"a task\"");
            root.stderr.flush();
        });
    }

    private static void stop(Server server, TestServicesStarter services) {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        services.close();
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + message);
        root.stderr.flush();
        return 2;
    }
}
