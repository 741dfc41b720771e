package dev.bellows.mcp.auth;

import com.nimbusds.oauth2.sdk.AuthorizationRequest;
import com.nimbusds.oauth2.sdk.GrantType;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.auth.ClientAuthenticationMethod;
import com.nimbusds.oauth2.sdk.client.ClientInformation;
import com.nimbusds.oauth2.sdk.client.ClientMetadata;
import com.nimbusds.oauth2.sdk.client.ClientRegistrationRequest;
import com.nimbusds.oauth2.sdk.client.ClientRegistrationResponse;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The authorization of one remote MCP server (MCP authorization, 2025-11-25): the token its
 * requests carry, and what happens when it answers 401 or 403. A transport asks
 * {@link #authorization(URI)} for the {@code Authorization} header of each request and, when
 * the server challenges, calls {@link #challenged} and repeats the request if it says so.
 *
 * <ul>
 * <li>Discovery from the challenge (RFC 9728, RFC 8414, OpenID Connect Discovery, the
 *     2025-03-26 fall-backs); a resource metadata naming another server is refused before any
 *     registration, authorization or token request.</li>
 * <li>The client: the configured one; else a Client ID Metadata Document where supported;
 *     else one registered dynamically (RFC 7591), stored and reused with its redirect port.</li>
 * <li>Tokens: the authorization code with PKCE S256, {@code state} and {@code resource}
 *     (RFC 8707), or client credentials, or the enterprise {@code jwt_bearer} flow; refreshed
 *     within 60 s of expiry or when refused; step-up on {@code insufficient_scope}.</li>
 * </ul>
 *
 * <p>A token is sent only to the URL it was obtained for. The authorization-code flow runs only
 * when {@link OAuthOptions} says a person can be asked (else {@link NeedsLoginException}, with
 * nothing sent to the authorization server). One flow runs at a time per server: concurrent
 * challenges wait for it and then use its token. Thread-safe; no lock is held across I/O.
 */
public final class McpAuthorization {

    /** A token this close to its expiry is refreshed before it is sent. */
    static final Duration REFRESH_MARGIN = Duration.ofSeconds(60);
    /** Authorizations one request may lead to; then it fails with the server's error. */
    public static final int MAX_AUTHORIZATIONS = 2;

    private static final System.Logger LOG = System.getLogger(McpAuthorization.class.getName());

    private final String name;
    private final URI server;
    private final OAuthConfig config;
    private final OAuthOptions options;
    private final OAuthHttp http;
    private final TokenRequests requests;
    private final AtomicLong personNanos = new AtomicLong();
    private final Object flightLock = new Object();
    private CompletableFuture<Void> flight; // guarded by flightLock
    private volatile StoredCredentials.Tokens tokens;
    private volatile boolean loaded;
    private volatile Discovery.Result discovered;

    private McpAuthorization(String name, URI server, OAuthConfig config, OAuthOptions options) {
        this.name = Objects.requireNonNull(name, "name");
        this.server = Objects.requireNonNull(server, "server");
        this.config = config == null ? OAuthConfig.DISCOVER : config;
        this.options = Objects.requireNonNull(options, "options");
        this.http = new OAuthHttp();
        this.requests = new TokenRequests(http, this.config);
    }

    /**
     * The authorization of the server {@code name} at {@code server}.
     *
     * @param config what is configured ({@code "oauth"}); null for {@link OAuthConfig#DISCOVER}
     */
    public static McpAuthorization of(String name, URI server, OAuthConfig config, OAuthOptions options) {
        return new McpAuthorization(name, server, config, options);
    }

    /** Per request: how many times it led to an authorization, and whether a refresh was tried. */
    public static final class Attempts {
        int authorizations;
        boolean refreshed;

        /** Authorizations so far. */
        public int authorizations() {
            return authorizations;
        }
    }

    /** The server's URL. */
    public URI server() {
        return server;
    }

    /**
     * The {@code Authorization} header for a request to {@code target}: present only when it
     * is the server's own URL and a token is held. A token within 60 s of its expiry is
     * refreshed first (a network request).
     */
    public Optional<String> authorization(URI target) throws InterruptedException {
        if (!sameUrl(target)) {
            return Optional.empty();
        }
        StoredCredentials.Tokens held = tokens();
        if (held != null && held.refreshToken() != null && held.expiresWithin(REFRESH_MARGIN, Instant.now())) {
            StoredCredentials.Tokens expiring = held;
            try {
                singleFlight(expiring.accessToken(), () -> refresh(expiring));
            } catch (OAuthException e) {
                LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + name + ": refresh before expiry failed: "
                        + e.getMessage());
            }
            held = tokens();
        }
        return held == null ? Optional.empty() : Optional.of("Bearer " + held.accessToken().reveal());
    }

    /** Whether the token held is within 60 s of its expiry and can be refreshed: {@link #authorization} will. */
    public boolean refreshDue() {
        StoredCredentials.Tokens held = tokens();
        return held != null && held.refreshToken() != null && held.expiresWithin(REFRESH_MARGIN, Instant.now());
    }

    /** The header with the token held now, without any request (for streams and closing). */
    public Optional<String> currentAuthorization(URI target) {
        StoredCredentials.Tokens held = sameUrl(target) ? tokens() : null;
        return held == null ? Optional.empty() : Optional.of("Bearer " + held.accessToken().reveal());
    }

    /**
     * The server answered a request with 401, or 403 {@code insufficient_scope}: obtains a new
     * token (a refresh first for a 401, then an authorization) and says whether to repeat the
     * request. One request leads to at most {@link #MAX_AUTHORIZATIONS} authorizations; after
     * that this returns false and the request fails with the server's answer.
     *
     * @param sent     the {@code Authorization} header the request carried, or null
     * @param attempts the request's own count, kept by the caller across its repetitions
     * @throws OAuthException when authorization fails ({@link NeedsLoginException} when a person
     *                        is needed and none can be asked)
     */
    public boolean challenged(Challenge challenge, String sent, Attempts attempts) throws InterruptedException {
        if (!challenge.insufficientScope() && challenge.status() != 401) {
            return false;
        }
        StoredCredentials.Tokens before = reload();
        OAuthSecret sentToken = sent != null && sent.startsWith("Bearer ") ? OAuthSecret.of(sent.substring(7)) : null;
        if (before != null && !before.accessToken().sameValue(sentToken)) {
            return true; // another request (or process) got a new token meanwhile: try it
        }
        if (challenge.status() == 401 && !attempts.refreshed && before != null && before.refreshToken() != null) {
            attempts.refreshed = true;
            if (singleFlight(before.accessToken(), () -> refresh(before))) {
                return true;
            }
        }
        if (attempts.authorizations >= MAX_AUTHORIZATIONS) {
            return false;
        }
        attempts.authorizations++;
        return singleFlight(before == null ? null : before.accessToken(), () -> {
            authorize(challenge, before);
            return true;
        });
    }

    /** How long this server's flows have waited for a person so far (not to be counted against timeouts). */
    public Duration personWait() {
        return Duration.ofNanos(personNanos.get());
    }

    /** Whether a person's approval may be needed (the authorization-code grant). */
    public boolean mayWaitForPerson() {
        return config.grantType().needsPerson();
    }

    // --- one flow at a time ---

    private interface Flow {
        boolean run() throws IOException, InterruptedException;
    }

    /**
     * Runs the flow unless another runs: then waits for that one and reports whether it
     * changed the token from {@code from}.
     */
    private boolean singleFlight(OAuthSecret from, Flow work) throws InterruptedException {
        CompletableFuture<Void> mine = null;
        CompletableFuture<Void> running;
        synchronized (flightLock) {
            if (flight == null) {
                flight = mine = new CompletableFuture<>();
            }
            running = flight;
        }
        if (mine == null) {
            try {
                running.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof OAuthException failure) {
                    throw failure;
                }
                throw new OAuthException(String.valueOf(e.getCause().getMessage()), e.getCause(), false);
            }
            StoredCredentials.Tokens now = tokens();
            return now != null && !now.accessToken().sameValue(from);
        }
        try {
            boolean result = work.run();
            mine.complete(null);
            return result;
        } catch (IOException e) {
            OAuthException failure = new OAuthException("authorization with MCP server \"" + name + "\" failed: "
                    + describe(e), e, true);
            mine.completeExceptionally(failure);
            throw failure;
        } catch (RuntimeException | InterruptedException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            synchronized (flightLock) {
                flight = null;
            }
        }
    }

    // --- tokens held ---

    private StoredCredentials.Tokens tokens() {
        if (!loaded) {
            reload();
        }
        return tokens;
    }

    /** Reads the store again: another process (bellows mcp login) may have stored new tokens. */
    private StoredCredentials.Tokens reload() {
        StoredCredentials.Tokens stored = options.store().read(server).tokens();
        tokens = stored;
        loaded = true;
        return stored;
    }

    private void keep(StoredCredentials.Tokens obtained) {
        options.store().update(server, stored -> stored.withTokens(obtained));
        tokens = obtained;
        loaded = true;
    }

    private boolean sameUrl(URI target) {
        return TokenStore.key(target).equals(TokenStore.key(server));
    }

    // --- refresh ---

    private boolean refresh(StoredCredentials.Tokens current) throws IOException, InterruptedException {
        StoredCredentials.Client client = clientFor(current.issuer());
        if (client == null) {
            return false;
        }
        TokenRequests.Endpoint at = new TokenRequests.Endpoint(current.issuer(), current.tokenEndpoint(), null);
        try {
            keep(requests.refresh(at, client, current));
            LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + name + ": token refreshed");
            return true;
        } catch (TokenRequests.TokenRefused e) {
            // The refresh token is spent or revoked: forget the tokens, keep the registration.
            options.store().update(server, stored -> stored.withTokens(null));
            tokens = null;
            LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + name + ": refresh refused: " + e.getMessage());
            return false;
        }
    }

    /** The client that refreshes tokens of this issuer: the configured one, else the stored registration. */
    private StoredCredentials.Client clientFor(String issuer) {
        if (config.clientId() != null) {
            return new StoredCredentials.Client(issuer == null ? "" : issuer, config.clientId(), config.clientSecret(), null, 0);
        }
        StoredCredentials.Client stored = options.store().read(server).client();
        if (stored != null && (issuer == null || stored.issuer().equals(issuer))) {
            return stored;
        }
        if (config.clientMetadataUrl() != null) {
            return new StoredCredentials.Client(issuer == null ? "" : issuer, config.clientMetadataUrl().toString(), null,
                    "none", 0);
        }
        return null;
    }

    // --- authorization ---

    private void authorize(Challenge challenge, StoredCredentials.Tokens before) throws IOException, InterruptedException {
        if (config.grantType().needsPerson() && !options.mayAskPerson()) {
            throw new NeedsLoginException(options.needsLogin().apply(name));
        }
        Discovery.Result found = discovered;
        if (found == null || challenge.resourceMetadata() != null && found.resource() == null) {
            found = Discovery.discover(http, server, challenge);
            discovered = found;
        }
        Discovery.AuthServer as = found.server();
        String resource = found.resource() != null ? found.resource().resource().toString() : Discovery.display(server);
        List<String> scopes = scopes(challenge, found, before);
        TokenRequests.Endpoint at = new TokenRequests.Endpoint(as.issuer(), as.tokenEndpoint(), as.authMethods());
        StoredCredentials.Tokens obtained = switch (config.grantType()) {
            case AUTHORIZATION_CODE -> authorizationCode(as, at, resource, scopes);
            case CLIENT_CREDENTIALS -> requests.clientCredentials(at, configuredClient(as), resource, scopes);
            case JWT_BEARER -> requests.jwtBearer(at, configuredClient(as), resource, scopes);
        };
        keep(obtained);
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + name + ": authorized (" + config.grantType().wireName()
                + ", scopes " + String.join(" ", obtained.scopes()) + ")");
    }

    /**
     * The scopes to ask for: {@code oauth.scopes}, else the challenge's, else all the resource
     * supports, else none; on a step-up, those granted plus the challenge's. The authorization
     * code grant adds {@code offline_access} when, and only when, the authorization server lists it.
     */
    private List<String> scopes(Challenge challenge, Discovery.Result found, StoredCredentials.Tokens before) {
        Set<String> scopes = new LinkedHashSet<>();
        if (challenge.insufficientScope()) {
            if (config.scopes() != null) {
                scopes.addAll(config.scopes());
            }
            if (before != null) {
                scopes.addAll(before.scopes());
            }
            scopes.addAll(challenge.scopes());
        } else if (config.scopes() != null) {
            scopes.addAll(config.scopes());
        } else if (!challenge.scopes().isEmpty()) {
            scopes.addAll(challenge.scopes());
        } else if (found.resource() != null) {
            scopes.addAll(found.resource().scopes());
        }
        if (config.grantType().needsPerson() && found.server().scopes().contains("offline_access")) {
            scopes.add("offline_access");
        }
        return List.copyOf(scopes);
    }

    private StoredCredentials.Client configuredClient(Discovery.AuthServer as) {
        return new StoredCredentials.Client(as.issuer(), config.clientId(), config.clientSecret(), null, 0);
    }

    private StoredCredentials.Tokens authorizationCode(Discovery.AuthServer as, TokenRequests.Endpoint at, String resource,
                                                       List<String> scopes) throws IOException, InterruptedException {
        if (as.pkceMethods() == null ? !as.legacy() : !as.pkceMethods().contains("S256")) {
            throw new OAuthException("the authorization server " + as.issuer() + " does not support PKCE with S256 "
                    + "(code_challenge_methods_supported): refused, as the MCP authorization spec requires");
        }
        if (as.authorizationEndpoint() == null) {
            throw new OAuthException("the authorization server " + as.issuer() + " publishes no authorization endpoint");
        }
        StoredCredentials.Client stored = options.store().read(server).client();
        boolean reuse = config.clientId() == null && !(config.clientMetadataUrl() != null && as.clientIdMetadataDocuments())
                && stored != null && stored.issuer().equals(as.issuer());
        int port = config.callbackPort() > 0 ? config.callbackPort() : reuse ? stored.redirectPort() : 0;
        try (LoopbackRedirect redirect = LoopbackRedirect.open(port)) {
            StoredCredentials.Client client;
            if (config.clientId() != null) {
                client = configuredClient(as);
            } else if (config.clientMetadataUrl() != null && as.clientIdMetadataDocuments()) {
                client = new StoredCredentials.Client(as.issuer(), config.clientMetadataUrl().toString(), null, "none", 0);
            } else if (reuse) {
                client = stored;
            } else {
                client = register(as, redirect);
            }
            CodeVerifier verifier = new CodeVerifier();
            OAuthSecret.of(verifier.getValue()); // marked secret: never in a message
            State state = new State();
            AuthorizationRequest.Builder request = new AuthorizationRequest.Builder(ResponseType.CODE,
                    new ClientID(client.clientId()))
                    .endpointURI(as.authorizationEndpoint())
                    .redirectionURI(redirect.uri())
                    .state(state)
                    .codeChallenge(verifier, CodeChallengeMethod.S256)
                    .resource(URI.create(resource));
            if (!scopes.isEmpty()) {
                request.scope(new Scope(scopes.toArray(String[]::new)));
            }
            URI url = request.build().toURI();
            long started = System.nanoTime();
            LoopbackRedirect.Answer answer;
            try {
                answer = bringPerson(url, redirect);
            } finally {
                personNanos.addAndGet(System.nanoTime() - started);
            }
            if (answer.error() != null) {
                throw new OAuthException("the login to MCP server \"" + name + "\" was refused: " + answer.error()
                        + (answer.description() == null || answer.description().isBlank() ? "" : ": " + answer.description()));
            }
            if (!state.getValue().equals(answer.state())) {
                throw new OAuthException("the login's redirect carried another state than Bellows sent: refused");
            }
            return requests.code(at, client, answer.code(), redirect.uri(), verifier, resource, scopes);
        }
    }

    /** Opens the authorization URL as configured and waits for the redirect. */
    private LoopbackRedirect.Answer bringPerson(URI url, LoopbackRedirect redirect) throws IOException, InterruptedException {
        OAuthOptions.Browser browser = options.browser();
        switch (browser) {
            case FETCH -> {
                options.notices().accept("MCP server \"" + name + "\": logging in headless (BELLOWS_OAUTH_BROWSER=fetch)");
                fetch(url, redirect);
            }
            case SYSTEM -> {
                options.notices().accept("MCP server \"" + name + "\" needs you to log in; opening your browser at: " + url);
                openSystemBrowser(url);
            }
            case NONE -> options.notices().accept("MCP server \"" + name + "\" needs you to log in: open " + url);
        }
        return redirect.await(browser.callbackTimeout());
    }

    /** The headless browser: GETs the page, follows redirects, without cookies, until Bellows' own redirect URI. */
    private void fetch(URI url, LoopbackRedirect redirect) throws IOException, InterruptedException {
        URI at = url;
        for (int hop = 0; hop < 20; hop++) {
            HttpResponse<?> response = http.visit(at);
            int status = response.statusCode();
            Optional<String> location = response.headers().firstValue("Location");
            if (status < 300 || status >= 400 || location.isEmpty()) {
                throw new OAuthException("the authorization page " + Discovery.display(at) + " answered HTTP " + status
                        + " without redirecting to Bellows (BELLOWS_OAUTH_BROWSER=fetch needs a server that approves "
                        + "without a person)");
            }
            URI next = at.resolve(location.get());
            if (TokenStore.key(next).equals(TokenStore.key(redirect.uri()))) {
                http.visit(next); // delivered to the loopback listener
                return;
            }
            at = next;
        }
        throw new OAuthException("the authorization page redirected more than 20 times");
    }

    private static void openSystemBrowser(URI url) {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        List<String> command = os.contains("mac") ? List.of("open", url.toString())
                : os.contains("win") ? List.of("rundll32", "url.dll,FileProtocolHandler", url.toString())
                : List.of("xdg-open", url.toString());
        try {
            new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            // no desktop browser: the URL was printed
        }
    }

    /** Dynamic client registration (RFC 7591), stored with its redirect port. */
    private StoredCredentials.Client register(Discovery.AuthServer as, LoopbackRedirect redirect)
            throws IOException, InterruptedException {
        if (as.registrationEndpoint() == null) {
            throw new OAuthException("the authorization server " + as.issuer() + " offers no dynamic client registration: "
                    + "configure a client for MCP server \"" + name + "\" (\"oauth\": {\"clientId\": ...})");
        }
        ClientMetadata metadata = new ClientMetadata();
        metadata.setName("Bellows");
        metadata.setRedirectionURI(redirect.uri());
        metadata.setGrantTypes(Set.of(GrantType.AUTHORIZATION_CODE, GrantType.REFRESH_TOKEN));
        metadata.setResponseTypes(Set.of(ResponseType.CODE));
        if (as.authMethods() != null && as.authMethods().contains("none")) {
            metadata.setTokenEndpointAuthMethod(ClientAuthenticationMethod.NONE);
        }
        ClientRegistrationResponse response;
        try {
            response = ClientRegistrationResponse.parse(http.send(
                    new ClientRegistrationRequest(as.registrationEndpoint(), metadata, null).toHTTPRequest()));
        } catch (ParseException e) {
            throw new OAuthException("the authorization server " + as.issuer() + " answered the client registration with "
                    + "something Bellows cannot read (" + e.getMessage() + ")");
        }
        if (!response.indicatesSuccess()) {
            var error = response.toErrorResponse().getErrorObject();
            throw new OAuthException("the authorization server " + as.issuer() + " refused to register Bellows: "
                    + TokenRequests.describe(error, error == null ? 400 : error.getHTTPStatusCode()));
        }
        ClientInformation info = response.toSuccessResponse().getClientInformation();
        ClientAuthenticationMethod method = info.getMetadata().getTokenEndpointAuthMethod();
        StoredCredentials.Client client = new StoredCredentials.Client(as.issuer(), info.getID().getValue(),
                info.getSecret() == null ? null : OAuthSecret.of(info.getSecret().getValue()),
                method == null ? null : method.getValue(), redirect.port());
        options.store().update(server, stored -> stored.withClient(client));
        return client;
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        return e instanceof java.net.ConnectException ? "connection refused"
                : e instanceof java.net.http.HttpTimeoutException ? "no answer in time"
                : message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    @Override
    public String toString() {
        return "McpAuthorization[" + name + ": " + Discovery.display(server) + ", " + config + "]";
    }

}
