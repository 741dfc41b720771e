package dev.bellows.a2a.server;

import tools.jackson.core.JacksonException;
import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.AuthenticationInfo;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.TaskPushNotificationConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * Push notifications: each event of a task POSTed as a {@link StreamResponse} to the task's
 * webhooks, in order (one queue per task), with the config's credentials
 * ({@code Authorization: SCHEME CREDENTIALS}) and token ({@code X-A2A-Notification-Token}).
 * Safe by default: a webhook URL must be https, or http to a loopback host; its host is never a
 * link-local, unspecified, multicast or cloud-metadata address (checked when the config is set
 * for a literal address or a known metadata name, and for every address the name resolves to
 * before each delivery); redirects are not followed; each delivery gives up after 10 s.
 */
final class PushDelivery implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PushDelivery.class.getName());
    private static final Set<String> METADATA_NAMES = Set.of("metadata.google.internal", "metadata",
            "metadata.azure.internal", "instance-data", "instance-data.ec2.internal");
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(TIMEOUT).build();
    private final Predicate<InetAddress> deliverable;
    private final Map<String, ExecutorService> queues = new ConcurrentHashMap<>();

    /** @param deliverable the addresses a webhook may be delivered to, besides the checks above */
    PushDelivery(Predicate<InetAddress> deliverable) {
        this.deliverable = deliverable;
    }

    /** The config as kept: checked, for this task, with an id. */
    TaskPushNotificationConfig check(TaskPushNotificationConfig config, String taskId) {
        if (config == null || config.url() == null || config.url().isBlank()) {
            throw new A2aException(A2aError.INVALID_PARAMS, "url: required (the webhook's https URL)");
        }
        checkUrl(config.url());
        AuthenticationInfo auth = config.authentication();
        if (auth != null && (auth.scheme() == null || auth.scheme().isBlank() || auth.scheme().matches(".*[\\s\\r\\n].*"))) {
            throw new A2aException(A2aError.INVALID_PARAMS, "authentication.scheme: required, one word (Bearer)");
        }
        if (auth != null && auth.credentials() != null && auth.credentials().matches("(?s).*[\\r\\n].*")) {
            throw new A2aException(A2aError.INVALID_PARAMS, "authentication.credentials: no line breaks");
        }
        if (config.token() != null && config.token().matches("(?s).*[\\r\\n].*")) {
            throw new A2aException(A2aError.INVALID_PARAMS, "token: no line breaks");
        }
        String id = config.id() == null || config.id().isBlank() ? UUID.randomUUID().toString() : config.id();
        return new TaskPushNotificationConfig(config.tenant(), id, taskId, config.url(), config.token(), auth);
    }

    /** Refuses a URL the policy does not admit, without any name lookup. */
    static URI checkUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw refused(url, "not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost();
        if (host == null || uri.getRawUserInfo() != null || !(scheme.equals("https") || scheme.equals("http"))) {
            throw refused(url, "give an https:// URL (or http:// to a loopback host) with no user info");
        }
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (METADATA_NAMES.contains(bare.toLowerCase(Locale.ROOT))) {
            throw refused(url, "a cloud metadata service");
        }
        InetAddress literal = literal(bare);
        if (literal != null && forbidden(literal)) {
            throw refused(url, "a link-local, unspecified, multicast or metadata address");
        }
        if (scheme.equals("http") && !loopbackName(bare, literal)) {
            throw refused(url, "plain http is taken only to a loopback host (localhost, 127.0.0.1, [::1]); use https");
        }
        return uri;
    }

    private static boolean loopbackName(String host, InetAddress literal) {
        return literal != null ? literal.isLoopbackAddress() : host.equalsIgnoreCase("localhost");
    }

    private static InetAddress literal(String host) {
        if (!host.matches("[0-9.]+") && !host.contains(":")) {
            return null;
        }
        try {
            return InetAddress.getByName(host);    // a literal: no lookup
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Addresses no webhook may reach: link-local (cloud metadata among them), unspecified, multicast, known metadata. */
    static boolean forbidden(InetAddress address) {
        String text = address.getHostAddress();
        return address.isLinkLocalAddress() || address.isAnyLocalAddress() || address.isMulticastAddress()
                || text.equals("100.100.100.200") || text.startsWith("fd00:ec2:");
    }

    private static A2aException refused(String url, String why) {
        return new A2aException(A2aError.INVALID_PARAMS, "url: the webhook " + url + " is refused: " + why);
    }

    /** Queues the event for each of the task's webhooks. */
    void deliver(LiveTask task, StreamResponse event) {
        List<TaskPushNotificationConfig> configs = task.pushConfigs();
        if (configs.isEmpty()) {
            return;
        }
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(event);
        } catch (JacksonException e) {
            LOG.log(System.Logger.Level.WARNING, "a push notification could not be written", e);
            return;
        }
        ExecutorService queue = queues.computeIfAbsent(task.id(), id -> Executors.newSingleThreadExecutor(
                Thread.ofVirtual().name("a2a-push-" + id).factory()));
        for (TaskPushNotificationConfig config : configs) {
            queue.execute(() -> send(config, body));
        }
        boolean last = event.statusUpdate() != null && event.statusUpdate().status().state().terminal();
        if (last) {
            queues.remove(task.id());
            queue.shutdown();       // runs what is queued, then ends
        }
    }

    private void send(TaskPushNotificationConfig config, byte[] body) {
        try {
            URI uri = checkUrl(config.url());
            for (InetAddress address : InetAddress.getAllByName(uri.getHost())) {
                if (forbidden(address) || !deliverable.test(address)
                        || (uri.getScheme().equalsIgnoreCase("http") && !address.isLoopbackAddress())) {
                    LOG.log(System.Logger.Level.INFO, () -> "push to " + uri.getHost() + " skipped: it resolves to "
                            + address.getHostAddress() + ", which webhooks may not reach");
                    return;
                }
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                    .header("Content-Type", "application/a2a+json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            if (config.authentication() != null) {
                request.header("Authorization", config.authentication().scheme()
                        + (config.authentication().credentials() == null ? "" : " " + config.authentication().credentials()));
            }
            if (config.token() != null && !config.token().isEmpty()) {
                request.header("X-A2A-Notification-Token", config.token());
            }
            HttpResponse<Void> response = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
            if (response.statusCode() / 100 != 2) {
                LOG.log(System.Logger.Level.INFO, () -> "push to " + uri.getHost() + " answered " + response.statusCode());
            }
        } catch (IOException | A2aException e) {
            LOG.log(System.Logger.Level.INFO, () -> "push to a webhook failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        queues.values().forEach(ExecutorService::shutdown);
        queues.clear();
        http.close();
    }
}
