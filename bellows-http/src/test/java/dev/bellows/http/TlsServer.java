package dev.bellows.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * A real Jetty 12 server on 127.0.0.1 speaking TLS with a self-signed certificate, offering
 * HTTP/2 and HTTP/1.1 by ALPN, or HTTP/1.1 alone. Every response says, in its
 * {@code X-Protocol} header, which protocol the request came in by, as the server saw it.
 */
final class TlsServer implements AutoCloseable {

    /** The protocols a server offers by ALPN. */
    enum Offer {
        /** h2 first, http/1.1 for clients without it: what the big APIs do. */
        H2,
        /** http/1.1 only, over TLS. */
        HTTP_1_1
    }

    /** What a test server answers: blocking I/O on Jetty's thread. */
    interface Answer {
        void answer(Exchange exchange) throws Exception;
    }

    /** One request, seen by an {@link Answer}. */
    static final class Exchange {
        private final Request request;
        private final Response response;
        private final OutputStream out;
        private final String body;

        Exchange(Request request, Response response, String body) {
            this.request = request;
            this.response = response;
            this.out = Content.Sink.asOutputStream(response);
            this.body = body;
        }

        String requestBody() {
            return body;
        }

        /** Sets the status and a header; the headers go with the first write. */
        Exchange status(int status, String contentType) {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
            return this;
        }

        Exchange header(String name, String value) {
            response.getHeaders().put(name, value);
            return this;
        }

        /** Writes and sends at once (Jetty's stream is not buffered); blocks while the client holds back. */
        void write(String text) throws IOException {
            write(text.getBytes(StandardCharsets.UTF_8));
        }

        void write(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        /** Sends the headers with nothing more yet. */
        void commit() throws IOException {
            out.flush();
        }
    }

    private static final char[] PASSWORD = "changeit".toCharArray();

    private final Server server;
    private final ServerConnector connector;
    private final SSLContext clientContext;
    private final Set<String> connections = ConcurrentHashMap.newKeySet();
    /** Released on close: answers that stall wait on it, so that the server can stop. */
    private final CountDownLatch closing = new CountDownLatch(1);
    private final List<Throwable> failures = new ArrayList<>();

    TlsServer(Path keyStore, Offer offer, Answer answer) throws Exception {
        server = new Server();
        HttpConfiguration config = new HttpConfiguration();
        config.addCustomizer(new SecureRequestCustomizer());
        HttpConnectionFactory http1 = new HttpConnectionFactory(config);
        ALPNServerConnectionFactory alpn = offer == Offer.H2
                ? new ALPNServerConnectionFactory("h2", "http/1.1")
                : new ALPNServerConnectionFactory("http/1.1");
        alpn.setDefaultProtocol(http1.getProtocol());
        SslContextFactory.Server tls = new SslContextFactory.Server();
        tls.setKeyStorePath(keyStore.toString());
        tls.setKeyStoreType("PKCS12");
        tls.setKeyStorePassword(new String(PASSWORD));
        SslConnectionFactory ssl = new SslConnectionFactory(tls, alpn.getProtocol());
        connector = offer == Offer.H2
                ? new ServerConnector(server, ssl, alpn, new HTTP2ServerConnectionFactory(config), http1)
                : new ServerConnector(server, ssl, alpn, http1);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                connections.add(String.valueOf(request.getConnectionMetaData().getRemoteSocketAddress()));
                try {
                    String body = Content.Source.asString(request, StandardCharsets.UTF_8);
                    response.getHeaders().put("X-Protocol", request.getConnectionMetaData().getProtocol());
                    answer.answer(new Exchange(request, response, body));
                    callback.succeeded();
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                    callback.failed(e);
                }
                return true;
            }
        });
        server.start();
        clientContext = trusting(keyStore);
    }

    /**
     * A new PKCS12 key store in {@code dir} with a self-signed certificate for 127.0.0.1 and
     * localhost, made by the running JDK's keytool (the JDK has no public API for it).
     */
    static Path selfSigned(Path dir) throws IOException, InterruptedException {
        Path store = dir.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "server",
                "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0 || !Files.exists(store)) {
            throw new IOException("keytool failed: " + output);
        }
        return store;
    }

    /** A client TLS context that trusts exactly the certificate in the key store. */
    static SSLContext trusting(Path keyStore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, PASSWORD);
        }
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("server", store.getCertificate("server"));
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    /** The TLS context a client needs to trust this server. */
    SSLContext clientContext() {
        return clientContext;
    }

    URI uri(String path) {
        return URI.create("https://127.0.0.1:" + connector.getLocalPort() + path);
    }

    /** The client connections (address and port) requests came in on so far. */
    Set<String> connections() {
        return Set.copyOf(connections);
    }

    /** What answers threw (a test asserts there was nothing, where it matters). */
    List<Throwable> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** Blocks an answer until the server closes. */
    void stall() throws InterruptedException {
        closing.await();
    }

    @Override
    public void close() throws Exception {
        closing.countDown();
        server.stop();
    }
}
