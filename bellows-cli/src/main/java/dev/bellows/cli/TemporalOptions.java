package dev.bellows.cli;

import dev.bellows.temporal.DurableAgent;
import dev.bellows.temporal.DurableWorker;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.File;
import java.time.Duration;
import io.grpc.ConnectivityState;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * Where durable runs go (cli.md, "Durable runs on Temporal"): the Temporal frontend's address,
 * the namespace, the task queue, and TLS. A picocli mixin of {@code worker} and {@code run}.
 * {@code TEMPORAL_API_KEY}, when set, is sent as Temporal Cloud's API key (never printed).
 */
final class TemporalOptions {

    /**
     * How long a worker or client waits, by default, for a frontend that does not answer: its first
     * answer before saying it cannot reach it, and (a client) an answer again once it stopped
     * answering mid-run ({@link DurableAgent#FRONTEND_PATIENCE}).
     */
    static final Duration DEFAULT_PATIENCE = DurableAgent.FRONTEND_PATIENCE;

    @Option(names = "--temporal", paramLabel = "HOST:PORT",
            description = "A Temporal frontend: the run is a durable workflow there (run), or this process serves them (worker).")
    String address;

    @Option(names = "--namespace", paramLabel = "NS", description = "The Temporal namespace (default: default).")
    String namespace;

    @Option(names = "--task-queue", paramLabel = "Q", description = "The task queue of durable runs (default: bellows).")
    String taskQueue;

    @Option(names = "--tls", description = "Connect to Temporal over TLS, trusting the system's certificate authorities"
            + " (implied by --tls-ca and --tls-cert).")
    boolean tls;

    @Option(names = "--tls-ca", paramLabel = "FILE", description = "PEM certificate authority to trust for Temporal's TLS.")
    File tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "PEM client certificate for Temporal's mutual TLS (with --tls-key).")
    File tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "PEM private key (PKCS#8) of --tls-cert.")
    File tlsKey;

    @Option(names = "--temporal-patience-seconds", paramLabel = "N",
            description = "How long to wait for a Temporal frontend that does not answer, at the start and (run) when it"
                    + " stops answering mid-run, before exit 1 (default 30).")
    Integer patienceSeconds;

    boolean given() {
        return address != null;
    }

    String namespace() {
        return namespace == null ? "default" : namespace;
    }

    String taskQueue() {
        return taskQueue == null ? DurableWorker.DEFAULT_TASK_QUEUE : taskQueue;
    }

    /** How long to wait for a frontend that does not answer (--temporal-patience-seconds). */
    Duration patience() {
        return patienceSeconds == null ? DEFAULT_PATIENCE : Duration.ofSeconds(patienceSeconds);
    }

    /** Checks the options, before anything connects. */
    void check() throws UsageException {
        if (patienceSeconds != null && patienceSeconds < 1) {
            throw new UsageException("--temporal-patience-seconds: must be at least 1");
        }
        if (address == null || address.isBlank()) {
            throw new UsageException("--temporal: give the frontend's HOST:PORT, e.g. 127.0.0.1:7233");
        }
        if (!address.strip().matches("[^\\s:/]+:\\d{1,5}")) {
            throw new UsageException("--temporal: not HOST:PORT: " + address);
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new UsageException(tlsCert == null ? "--tls-key: needs --tls-cert" : "--tls-cert: needs --tls-key");
        }
        for (File file : new File[] {tlsCa, tlsCert, tlsKey}) {
            if (file != null && !file.canRead()) {
                throw new UsageException("cannot read " + file);
            }
        }
        if (namespace != null && namespace.isBlank()) {
            throw new UsageException("--namespace: empty");
        }
        if (taskQueue != null && taskQueue.isBlank()) {
            throw new UsageException("--task-queue: empty");
        }
    }

    /**
     * A client of the namespace, with the data converter of durable runs, once the frontend
     * answers: tried for up to {@link #patience()}; {@code notice} is told in one line, within
     * seconds, when it does not answer at first.
     */
    WorkflowClient connect(Host host, Consumer<String> notice) throws UsageException {
        WorkflowServiceStubsOptions.Builder options = WorkflowServiceStubsOptions.newBuilder()
                .setTarget(address.strip())
                .setRpcTimeout(Duration.ofSeconds(10))
                // The SDK's own first calls (health check, system info) give up after 5 s each, and do not
                // try again: a frontend across a network, or a busy machine (a JVM starting its gRPC channel
                // takes seconds on a loaded two-core one), may need longer to answer the first time.
                .setHealthCheckAttemptTimeout(patience())
                .setHealthCheckTimeout(patience())
                .setSystemInfoTimeout(patience());
        if (tls || tlsCa != null || tlsCert != null) {
            try {
                SslContextBuilder ssl = GrpcSslContexts.forClient();
                if (tlsCa != null) {
                    ssl.trustManager(tlsCa);
                }
                if (tlsCert != null) {
                    ssl.keyManager(tlsCert, tlsKey);
                }
                SslContext context = ssl.build();
                options.setSslContext(context);
            } catch (Exception e) {
                throw new UsageException("--tls: " + BellowsCommand.oneLine(e.getMessage()));
            }
        }
        String apiKey = host.env().get("TEMPORAL_API_KEY");
        if (apiKey != null && !apiKey.isBlank()) {
            options.addApiKey(() -> apiKey);
        }
        WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(options.build());
        CountDownLatch answered = new CountDownLatch(1);
        // The connection is tried for patience(); a frontend that does not answer at once is said
        // within seconds, not only when that time is up.
        Thread watch = Thread.ofVirtual().name("bellows-temporal-connect").start(() -> {
            try {
                if (answered.await(FIRST_ANSWER.toMillis(), TimeUnit.MILLISECONDS)) {
                    return;
                }
                // A connection that fails is said at once; one that is made but slow to answer (a loaded
                // machine's first gRPC call takes seconds) only when it is really late.
                if (service.getRawChannel().getState(false) != ConnectivityState.TRANSIENT_FAILURE
                        && answered.await(SLOW_ANSWER.minus(FIRST_ANSWER).toMillis(), TimeUnit.MILLISECONDS)) {
                    return;
                }
                notice.accept((service.getRawChannel().getState(false) == ConnectivityState.TRANSIENT_FAILURE
                        ? "cannot reach Temporal at " + address.strip() + " yet (the connection fails)"
                        : "no answer from Temporal at " + address.strip() + " yet")
                        + "; trying for up to " + patience().toSeconds() + " s in all");
            } catch (InterruptedException e) {
                // connected, or gave up
            }
        });
        try {
            service.connect(patience());
        } catch (RuntimeException e) {
            service.shutdownNow();
            throw e;
        } finally {
            answered.countDown();
            watch.interrupt();
        }
        return DurableAgent.client(service, namespace());
    }

    /** How long a frontend that cannot be connected to may take before the command says so. */
    private static final Duration FIRST_ANSWER = Duration.ofSeconds(3);
    /** How long a connected frontend may take to answer before the command says it waits for it. */
    private static final Duration SLOW_ANSWER = Duration.ofSeconds(10);
}
