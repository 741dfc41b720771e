package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A stdio server's messages are bounded by its configured limit (64 KiB here, texts cut to
 * 4096 characters as they arrive): a result cut as it arrived reaches the model with a note
 * that counts what the server sent; a message longer than 32 times the limit as sent stops the
 * server at once, without reading on to the end of the line, with an error naming the server
 * and the limit.
 */
class StdioBoundsTest {

    private static ToolCallOutcome bigCall(int megabytes) {
        McpServerConfig config = McpServerConfig.stdio("big", "node").args(TestServers.script("big-result.js"))
                .env("BIG_MB", Integer.toString(megabytes)).maxMessageBytes(64 << 10).build();
        try (McpServers servers = McpServers.start(List.of(config), McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).isEmpty();
            ToolChainResult result = new ToolChain(registry)
                    .withResultLimit(new ResultLimit(1000, new EstimatingTokenCounter()))
                    .execute(List.of(ReferenceServersTest.call("big", "big", Map.of())));
            return result.outcomes().getFirst();
        }
    }

    @Test
    void a_text_cut_as_it_arrived_reaches_the_model_with_the_count_of_what_the_server_sent() {
        ToolCallOutcome outcome = bigCall(1);
        assertThat(outcome).isInstanceOf(ToolCallOutcome.Succeeded.class);
        // 2 pieces of 16,384 lines of 47 characters ("...xyz" and a newline), then "end of it".
        long sent = 2L * 16_384 * 47 + "end of it".length();
        String text = outcome.text();
        long kept = text.indexOf(System.lineSeparator() + System.lineSeparator() + "[this result was cut: ");
        assertThat(text).startsWith("log line 0123456789").doesNotContain("as they arrived")
                .contains(String.format("[this result was cut: %,d of its %,d characters", sent - kept, sent))
                .contains("to keep it within 1,000 tokens");
    }

    @Test
    void a_message_of_more_than_32_times_the_limit_as_sent_stops_the_server_naming_the_limit() {
        ToolCallOutcome outcome = bigCall(50);
        assertThat(outcome).isInstanceOf(ToolCallOutcome.Failed.class);
        assertThat(outcome.text()).contains("MCP server \"big\" stopped during the call: it wrote a message to stdout of"
                + " more than 2 MiB as sent (its texts cut to 4096 characters) (the server's limit, maxMessageMiB)");
    }
}
