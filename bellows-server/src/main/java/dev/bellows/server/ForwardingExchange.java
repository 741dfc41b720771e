package dev.bellows.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;

/** An exchange that hands every call to another: extended by those that change one of them. */
abstract class ForwardingExchange implements ServerExchange {

    private final ServerExchange exchange;

    ForwardingExchange(ServerExchange exchange) {
        this.exchange = exchange;
    }

    @Override
    public String method() {
        return exchange.method();
    }

    @Override
    public String path() {
        return exchange.path();
    }

    @Override
    public Optional<String> query() {
        return exchange.query();
    }

    @Override
    public Optional<String> header(String name) {
        return exchange.header(name);
    }

    @Override
    public InputStream body() throws IOException {
        return exchange.body();
    }

    @Override
    public long contentLength() {
        return exchange.contentLength();
    }

    @Override
    public Optional<InetSocketAddress> localAddress() {
        return exchange.localAddress();
    }

    @Override
    public OutputStream respond(int status, Map<String, String> headers) throws IOException {
        return exchange.respond(status, headers);
    }
}
