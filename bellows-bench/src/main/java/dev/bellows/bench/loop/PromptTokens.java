package dev.bellows.bench.loop;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.memory.TokenCounter;
import dev.bellows.prompt.ToolCatalogStyle;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.tokenizers.TokenCounters;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.List;
import java.util.Locale;

/**
 * The prompt-token budget of BENCHMARKS.md: the system message Bellows sends for one user tool
 * (the loop comparison's {@code add}) in each tool mode and, for tag and ReAct modes, with each
 * catalog style (the default JSON Schema catalog and the opt-in signatures), with the built-in
 * tools and without them ({@code builtinTools(false)}), against that tool as a native {@code tools} entry (what
 * LangChain4j sends; it sends no system text by default), counted in o200k_base tokens with
 * bellows-tokenizers. For native mode the {@code tools} entries Bellows sends (the tool and the
 * built-ins, in the same form) are counted too. Nothing is sent anywhere.
 *
 * <pre>
 * java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.PromptTokens [--show]
 * </pre>
 */
public final class PromptTokens {

    private static final ObjectMapper JSON = JsonMapper.shared();

    private PromptTokens() {
    }

    public static void main(String[] args) {
        boolean show = List.of(args).contains("--show");
        TokenCounter counter = TokenCounters.forModel("gpt-4o");
        Tool add = TypedTool.of("add", "Adds two integers", BellowsAgent.AddArguments.class,
                (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b())));
        int nativeEntry = counter.count(JSON.writeValueAsString(nativeEntry(add)));
        System.out.printf(Locale.ROOT, "one native `tools` entry (add): %d tokens; the budget (2x): %d%n%n",
                nativeEntry, 2 * nativeEntry);
        System.out.printf(Locale.ROOT, "| Bellows, o200k tokens | built-ins on | x entry | built-ins off | x entry |%n"
                + "|---|---|---|---|---|%n");
        for (ToolMode mode : ToolMode.values()) {
            // Native mode sends the tools in the request: the catalog style does not apply to it.
            List<ToolCatalogStyle> styles = mode == ToolMode.NATIVE
                    ? List.of(ToolCatalogStyle.JSON_SCHEMA) : List.of(ToolCatalogStyle.values());
            for (ToolCatalogStyle style : styles) {
                int[] system = new int[2];
                int[] withTools = new int[2];
                for (int i = 0; i < 2; i++) {
                    DefaultAgent agent = DefaultAgent.builder().provider(new Unused()).model("mock").toolMode(mode)
                            .toolCatalog(style).builtinTools(i == 0).toolRegistry(new ToolRegistry().register(add))
                            .build();
                    String text = agent.systemMessage().map(Message::content).orElse("");
                    system[i] = counter.count(text);
                    if (show) {
                        System.out.printf(Locale.ROOT, "--- %s, %s, built-ins %s:%n%s%n---%n", mode,
                                mode == ToolMode.NATIVE ? "tools in the request" : style,
                                i == 0 ? "on" : "off", text);
                    }
                    ArrayNode entries = JSON.createArrayNode();
                    agent.toolRegistry().orElseThrow().tools().forEach(tool -> entries.add(nativeEntry(tool.tool())));
                    withTools[i] = system[i] + counter.count(JSON.writeValueAsString(entries));
                }
                String name = mode.name().toLowerCase(Locale.ROOT) + " mode";
                if (mode == ToolMode.NATIVE) {
                    row(name + ", system message", system, nativeEntry);
                    row(name + ", system message + `tools` entries", withTools, nativeEntry);
                } else {
                    row(name + ", system message, " + (style == ToolCatalogStyle.JSON_SCHEMA
                            ? "JSON Schema catalog (default)" : "`toolCatalog(SIGNATURES)`"), system, nativeEntry);
                }
            }
        }
    }

    private static void row(String what, int[] tokens, int nativeEntry) {
        System.out.printf(Locale.ROOT, "| %s | %d | %.2f | %d | %.2f |%n", what, tokens[0],
                (double) tokens[0] / nativeEntry, tokens[1], (double) tokens[1] / nativeEntry);
    }

    /** The tool as an OpenAI chat-completions {@code tools} entry. */
    private static ObjectNode nativeEntry(Tool tool) {
        ObjectNode entry = JSON.createObjectNode().put("type", "function");
        entry.putObject("function").put("name", tool.name()).put("description", tool.description())
                .set("parameters", tool.inputSchema());
        return entry;
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
