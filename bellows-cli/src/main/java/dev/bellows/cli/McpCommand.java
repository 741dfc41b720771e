package dev.bellows.cli;

import dev.bellows.mcp.ElicitationHandler;
import dev.bellows.mcp.McpClientOptions;
import dev.bellows.mcp.McpServerConfig;
import dev.bellows.mcp.McpServers;
import dev.bellows.mcp.auth.OAuthException;
import dev.bellows.mcp.auth.OAuthOptions;
import dev.bellows.mcp.auth.OAuthSecret;
import dev.bellows.mcp.auth.StoredCredentials;
import dev.bellows.mcp.auth.TokenStore;
import dev.bellows.tool.SourceFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows mcp login NAME} / {@code bellows mcp logout NAME}: authorize Bellows with a
 * remote MCP server that needs OAuth, or forget what is stored for it (docs/mcp.md).
 */
@Command(name = "mcp",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = {"Logs in to an MCP server that needs authorization (OAuth), or out of it.",
                "",
                "Tokens are kept in mcp-oauth.json (mode 0600) in the data directory, per server URL."},
        subcommands = {McpCommand.Login.class, McpCommand.Logout.class})
final class McpCommand implements Callable<Integer> {

    @ParentCommand
    BellowsCommand root;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        root.stderr.println(spec.qualifiedName() + ": say login NAME or logout NAME (see '" + spec.qualifiedName()
                + " --help')");
        root.stderr.flush();
        return 2;
    }

    /** Options both subcommands take. */
    static class Where {
        @Parameters(paramLabel = "NAME", description = "The MCP server, by its name in the configuration.")
        String name;

        @Option(names = "--mcp-config", paramLabel = "FILE", description = "MCP servers in the common format.")
        String mcpConfig;

        @Option(names = "--config", paramLabel = "FILE",
                description = "Settings as for bellows run; its MCP servers are used when --mcp-config is not given.")
        String config;

        @Option(names = "--data-dir", paramLabel = "DIR",
                description = "Where tokens are kept. Env BELLOWS_DATA_DIR; default $XDG_DATA_HOME/bellows, else"
                        + " ~/.local/share/bellows.")
        String dataDir;

        /** The remote server NAME. @throws UsageException when unknown or local */
        McpServerConfig.StreamableHttp server(BellowsCommand root) throws UsageException {
            ConfigFile file = ConfigFile.locate(root.host, config);
            List<McpServerConfig> servers = McpSetup.servers(root.host, file, mcpConfig);
            McpServerConfig found = servers.stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
            if (found == null) {
                throw new UsageException("no MCP server named \"" + name + "\" is configured (servers: "
                        + (servers.isEmpty() ? "none; give --mcp-config FILE"
                        : String.join(", ", servers.stream().map(McpServerConfig::name).toList())) + ")");
            }
            if (!(found instanceof McpServerConfig.StreamableHttp http)) {
                throw new UsageException("MCP server \"" + name + "\" is a local server (\"command\"): it needs no login");
            }
            return http;
        }

        TokenStore store(BellowsCommand root) throws UsageException {
            Path directory = DataDirectory.resolve(root.host, dataDir);
            return TokenStore.file(directory.resolve(McpSetup.TOKEN_FILE));
        }
    }

    @Command(name = "login", mixinStandardHelpOptions = true, versionProvider = BellowsCommand.Version.class,
            description = {"Authorizes Bellows with the MCP server NAME: drops its stored tokens (not its registration),"
                    + " connects, lists its tools, and logs in whenever the server asks (your browser opens; the URL is"
                    + " printed too). Then prints 'logged in to NAME' (or 'NAME needs no login').",
                    "",
                    "Env BELLOWS_OAUTH_BROWSER: system (default), none (only print the URL), fetch (headless: Bellows"
                            + " requests the URL itself, for servers that approve without a person)."},
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {"0:logged in, or no login needed",
                    "1:the login failed (denied, timed out, refused resource, an authorization server's error)",
                    "2:usage or configuration error (unknown NAME, a local server)"})
    static final class Login implements Callable<Integer> {

        @ParentCommand
        McpCommand parent;

        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        Where where = new Where();

        @Option(names = "--no-browser", description = "Only print the authorization URL (BELLOWS_OAUTH_BROWSER=none).")
        boolean noBrowser;

        @Override
        public Integer call() {
            BellowsCommand root = parent.root;
            String command = spec.qualifiedName();
            McpServerConfig.StreamableHttp server;
            TokenStore store;
            McpClientOptions options;
            try {
                server = where.server(root);
                store = where.store(root);
                OAuthOptions.Browser browser = noBrowser ? OAuthOptions.Browser.NONE : McpSetup.browser(root.host);
                options = McpSetup.clientOptions(root, command, where.dataDir, browser, true, ElicitationHandler.DECLINE);
            } catch (UsageException e) {
                return fail(root, command, e.getMessage(), 2);
            }
            if (!server.usesOAuth()) {
                return fail(root, command, "MCP server \"" + server.name() + "\" has a static Authorization header:"
                        + " no OAuth runs for it", 2);
            }
            try {
                store.update(server.url(), stored -> stored.withTokens(null));
            } catch (OAuthException e) {
                return fail(root, command, e.getMessage(), 1);
            }
            // One attempt: a login that failed is reported, not retried in the background.
            McpServerConfig.StreamableHttp once = McpServerConfig.http(server.name(), server.url().toString())
                    .headers(server.headers())
                    .startupTimeout(server.startupTimeout())
                    .callTimeout(server.callTimeout())
                    .restart(new dev.bellows.mcp.RestartPolicy(1, server.restart().firstDelay(), server.restart().maxDelay()))
                    .oauth(server.oauth())
                    .maxMessageBytes(server.maxMessageBytes())
                    .build();
            try (McpServers started = McpServers.start(List.of(once), root.host.env(),
                    McpSetup.reporter(command, root.stderr, OAuthSecret::redact), options)) {
                List<SourceFailure> failures = started.failures();
                if (!failures.isEmpty()) {
                    return fail(root, command, server.name() + ": " + BellowsCommand.oneLine(failures.getFirst().reason()), 1);
                }
            }
            StoredCredentials stored;
            try {
                stored = store.read(server.url());
            } catch (OAuthException e) {
                return fail(root, command, e.getMessage(), 1);
            }
            return print(root, stored.tokens() != null ? "logged in to " + server.name() : server.name() + " needs no login");
        }
    }

    @Command(name = "logout", mixinStandardHelpOptions = true, versionProvider = BellowsCommand.Version.class,
            description = "Forgets what is stored for the MCP server NAME: its tokens and its client registration.",
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {"0:done", "1:the token file could not be written",
                    "2:usage or configuration error (unknown NAME, a local server)"})
    static final class Logout implements Callable<Integer> {

        @ParentCommand
        McpCommand parent;

        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        Where where = new Where();

        @Override
        public Integer call() {
            BellowsCommand root = parent.root;
            String command = spec.qualifiedName();
            try {
                McpServerConfig.StreamableHttp server = where.server(root);
                TokenStore store = where.store(root);
                boolean had = !store.read(server.url()).isEmpty();
                if (had) {
                    store.remove(server.url());
                }
                return print(root, had ? "logged out of " + server.name() : "nothing stored for " + server.name());
            } catch (UsageException e) {
                return fail(root, command, e.getMessage(), 2);
            } catch (OAuthException e) {
                return fail(root, command, e.getMessage(), 1);
            }
        }
    }

    private static int print(BellowsCommand root, String line) {
        try {
            root.stdout.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            root.stdout.flush();
            return 0;
        } catch (IOException e) {
            return 1;
        }
    }

    private static int fail(BellowsCommand root, String command, String message, int status) {
        root.stderr.println(command + ": " + OAuthSecret.redact(BellowsCommand.oneLine(message)));
        root.stderr.flush();
        return status;
    }
}
