package dev.bellows.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP receiver on 127.0.0.1 (a free port), as a collector would be: {@code POST
 * /v1/traces} and {@code /v1/metrics} with protobuf bodies (gzip or not), decoded with the
 * protocol's own classes and kept, each answered 200 with the protocol's empty response.
 */
final class OtlpReceiver implements AutoCloseable {

    final List<ExportTraceServiceRequest> traces = new CopyOnWriteArrayList<>();
    final List<ExportMetricsServiceRequest> metrics = new CopyOnWriteArrayList<>();
    /** Every body as received (before decoding), to look for what must never be sent. */
    final List<byte[]> bodies = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/v1/traces", exchange -> receive(exchange, body -> {
            traces.add(ExportTraceServiceRequest.parseFrom(body));
            return ExportTraceServiceResponse.getDefaultInstance().toByteArray();
        }));
        server.createContext("/v1/metrics", exchange -> receive(exchange, body -> {
            metrics.add(ExportMetricsServiceRequest.parseFrom(body));
            return ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
        }));
        server.start();
    }

    /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private interface Decoder {
        byte[] decode(byte[] body) throws IOException;
    }

    private void receive(HttpExchange exchange, Decoder decoder) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("POST")
                    || !"application/x-protobuf".equals(exchange.getRequestHeaders().getFirst("Content-Type"))) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(body))) {
                    body = in.readAllBytes();
                }
            }
            bodies.add(body);
            byte[] answer = decoder.decode(body);
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
        }
    }

    /** Every span received. */
    List<Span> spans() {
        return traces.stream().flatMap(request -> request.getResourceSpansList().stream())
                .flatMap(resource -> resource.getScopeSpansList().stream())
                .flatMap(scope -> scope.getSpansList().stream())
                .toList();
    }

    List<Span> spans(String name) {
        return spans().stream().filter(span -> span.getName().equals(name)).toList();
    }

    /** The service.name of the resource the spans came from. */
    Optional<String> serviceName() {
        return traces.stream().flatMap(request -> request.getResourceSpansList().stream())
                .flatMap(resource -> resource.getResource().getAttributesList().stream())
                .filter(attribute -> attribute.getKey().equals("service.name"))
                .map(attribute -> attribute.getValue().getStringValue()).findFirst();
    }

    /** Every metric received (a metric exported twice appears twice). */
    List<Metric> metrics(String name) {
        return metrics.stream().flatMap(request -> request.getResourceMetricsList().stream())
                .flatMap(resource -> resource.getScopeMetricsList().stream())
                .flatMap(scope -> scope.getMetricsList().stream())
                .filter(metric -> metric.getName().equals(name))
                .toList();
    }

    /** The name of every metric received, each once. */
    List<String> metricNames() {
        return metrics.stream().flatMap(request -> request.getResourceMetricsList().stream())
                .flatMap(resource -> resource.getScopeMetricsList().stream())
                .flatMap(scope -> scope.getMetricsList().stream())
                .map(Metric::getName).distinct().toList();
    }

    static Map<String, AnyValue> attributes(List<KeyValue> attributes) {
        return attributes.stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    }

    static String hex(com.google.protobuf.ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }

    boolean received(String text) {
        byte[] needle = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (byte[] body : bodies) {
            outer:
            for (int i = 0; i + needle.length <= body.length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (body[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
