package dev.bellows.bench.loop;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.memory.TokenCounter;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.tokenizers.TokenCounters;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.Locale;

/**
 * The prompt-token budget of BENCHMARKS.md: the system message Bellows sends for one user tool
 * (the loop comparison's {@code add}) in each tool mode, against that tool as a native
 * {@code tools} entry (what LangChain4j sends; it sends no system text by default), counted
 * in o200k_base tokens with bellows-tokenizers. Nothing is sent anywhere.
 *
 * <pre>
 * java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.PromptTokens
 * </pre>
 */
public final class PromptTokens {

    private PromptTokens() {
    }

    public static void main(String[] args) throws JsonProcessingException {
        TokenCounter counter = TokenCounters.forModel("gpt-4o");
        Tool add = TypedTool.of("add", "Adds two integers", BellowsAgent.AddArguments.class,
                (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b())));
        ObjectMapper json = new ObjectMapper();
        ObjectNode entry = json.createObjectNode().put("type", "function");
        entry.putObject("function").put("name", add.name()).put("description", add.description())
                .set("parameters", add.inputSchema());
        int nativeEntry = counter.count(json.writeValueAsString(entry));
        System.out.printf(Locale.ROOT, "| what | o200k tokens | x native tool entry |%n|---|---|---|%n");
        System.out.printf(Locale.ROOT, "| one native `tools` entry (add) | %d | 1.00 |%n", nativeEntry);
        for (ToolMode mode : ToolMode.values()) {
            DefaultAgent agent = DefaultAgent.builder().provider(new Unused()).model("mock").toolMode(mode)
                    .toolRegistry(new ToolRegistry().register(add)).build();
            int system = agent.systemMessage().map(Message::content).map(counter::count).orElse(0);
            System.out.printf(Locale.ROOT, "| Bellows system message, %s mode | %d | %.2f |%n",
                    mode.name().toLowerCase(Locale.ROOT), system, (double) system / nativeEntry);
        }
    }

    /** Only the system message is built: no request is made. */
    private static final class Unused implements Provider {
        @Override
        public String name() {
            return "unused";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            throw new UnsupportedOperationException("PromptTokens sends no request");
        }
    }
}
