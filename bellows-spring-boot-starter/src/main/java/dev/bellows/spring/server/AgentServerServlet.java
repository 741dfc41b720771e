package dev.bellows.spring.server;

import dev.bellows.server.AgentServer;
import dev.bellows.server.ServerExchange;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link AgentServer} as a servlet: mapped at {@code PATH/*}, it answers {@code PATH/agui},
 * {@code PATH/v1/chat/completions} and the rest of the agent server's endpoints, the page at
 * {@code PATH/}. Each request goes async and is handled on a virtual thread of its own, so a
 * long stream holds no container thread.
 */
public final class AgentServerServlet extends HttpServlet {

    private final transient AgentServer server;

    public AgentServerServlet(AgentServer server) {
        this.server = Objects.requireNonNull(server, "server");
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        if (path == null || path.isEmpty()) {
            // the page's addresses are relative: it must be served from PATH/, not PATH
            response.sendRedirect(request.getRequestURI() + "/");
            return;
        }
        AsyncContext async = request.startAsync();
        async.setTimeout(0);    // a run's own limits end it
        Thread.ofVirtual().name("bellows-request").start(() -> {
            try {
                server.handle(new Exchange(request, response, path));
            } catch (IOException | RuntimeException gone) {
                // the client went away: nothing left to answer
            } finally {
                async.complete();
            }
        });
    }

    private static final class Exchange implements ServerExchange {
        private final HttpServletRequest request;
        private final HttpServletResponse response;
        private final String path;

        Exchange(HttpServletRequest request, HttpServletResponse response, String path) {
            this.request = request;
            this.response = response;
            this.path = path;
        }

        @Override
        public String method() {
            return request.getMethod();
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public Optional<String> header(String name) {
            return Optional.ofNullable(request.getHeader(name));
        }

        @Override
        public InputStream body() throws IOException {
            return request.getInputStream();
        }

        @Override
        public long contentLength() {
            return request.getContentLengthLong();
        }

        @Override
        public Optional<InetSocketAddress> localAddress() {
            return Optional.of(new InetSocketAddress(request.getLocalAddr(), request.getLocalPort()));
        }

        @Override
        public OutputStream respond(int status, Map<String, String> headers) throws IOException {
            response.setStatus(status);
            headers.forEach((name, value) -> {
                if (name.equalsIgnoreCase("Content-Length")) {
                    response.setContentLengthLong(Long.parseLong(value));
                } else if (name.equalsIgnoreCase("Content-Type")) {
                    response.setContentType(value);
                } else {
                    response.setHeader(name, value);
                }
            });
            OutputStream out = response.getOutputStream();
            response.flushBuffer();     // the status and headers now: a stream's client sees them at once
            return out;
        }
    }
}
