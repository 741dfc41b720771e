package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.chain.ToolChain;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.ToolRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A notification from a Streamable HTTP server outside any call: the server (a minimal one on
 * the official TypeScript SDK, a real process) adds a tool after its call has been answered,
 * and its {@code notifications/tools/list_changed}, which belongs to no request, can only come
 * on the standalone GET stream Bellows' transport keeps open. The registry must then hold the
 * new tool, listed again over POST.
 */
class HttpNotificationsTest {

    @Test
    void list_changed_on_the_get_stream_refreshes_the_registry() throws Exception {
        List<String> serverSaid = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Integer> port = new CompletableFuture<>();
        ProcessBuilder builder = new ProcessBuilder("node", TestServers.script("list-changed-http-server.cjs"))
                .redirectErrorStream(true);
        builder.environment().put("NODE_PATH", TestServers.nodeModules().toString());
        Process server = builder.start();
        Thread.ofPlatform().daemon().name("list-changed-output").start(() -> { // a pipe read pins a carrier
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    serverSaid.add(line);
                    Matcher listening = Pattern.compile("listening on port (\\d+)").matcher(line);
                    if (listening.find()) {
                        port.complete(Integer.parseInt(listening.group(1)));
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            port.completeExceptionally(new IllegalStateException("the server exited: " + serverSaid));
        });
        List<String> changed = Collections.synchronizedList(new ArrayList<>());
        McpListener listener = new McpListener() {
            @Override
            public void toolsChanged(String name) {
                changed.add(name);
            }
        };
        try (McpServers servers = McpServers.start(List.of(McpServerConfig.http("growing",
                        "http://127.0.0.1:" + port.get(60, TimeUnit.SECONDS) + "/mcp").build()), listener);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).isEmpty();
            assertThat(registry.find("growing", "extra")).isEmpty();
            ToolChain chain = new ToolChain(registry);
            assertThat(ReferenceServersTest.succeeded(chain.execute(List.of(
                    ReferenceServersTest.call("growing", "grow", Map.of())))).text()).contains("growing");

            for (int i = 0; i < 1200 && (registry.find("growing", "extra").isEmpty() || !changed.contains("growing")); i++) {
                Thread.sleep(50); // the notification comes after the call; a bounded wait, not a timing assertion
            }
            assertThat(registry.find("growing", "extra")).as(serverSaid.toString()).isPresent();
            assertThat(changed).contains("growing");
            assertThat(serverSaid).contains("list_changed sent");
            assertThat(ReferenceServersTest.succeeded(chain.execute(List.of(
                    ReferenceServersTest.call("growing", "extra", Map.of())))).text()).contains("extra is here");
        } finally {
            server.destroy();
            server.waitFor(60, TimeUnit.SECONDS); // hang guard
        }
    }
}
