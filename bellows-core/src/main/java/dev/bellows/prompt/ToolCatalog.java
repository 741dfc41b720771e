package dev.bellows.prompt;

import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolCall;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The list of tools in the system prompt, each as a {@link ToolSignature}. When every tool is
 * on server {@code local} (the parser's default server) the servers are not named at all, so
 * the model never has to write one; otherwise each server gets a heading.
 */
final class ToolCatalog {

    private ToolCatalog() {
    }

    /** True when a call needs no {@code server_name}: every tool is on server {@code local}. */
    static boolean allLocal(List<RegisteredTool> tools) {
        return tools.stream().allMatch(tool -> tool.serverName().equals(ToolCall.LOCAL_SERVER));
    }

    static String render(List<RegisteredTool> tools) {
        if (tools.isEmpty()) {
            return "Tools: none.";
        }
        if (allLocal(tools)) {
            return "Tools:\n" + signatures(tools);
        }
        Map<String, List<RegisteredTool>> byServer = tools.stream().collect(
                Collectors.groupingBy(RegisteredTool::serverName, LinkedHashMap::new, Collectors.toList()));
        return byServer.entrySet().stream()
                .map(server -> "Tools of server_name \"" + server.getKey() + "\":\n" + signatures(server.getValue()))
                .collect(Collectors.joining("\n\n"));
    }

    private static String signatures(List<RegisteredTool> tools) {
        return tools.stream()
                .map(tool -> ToolSignature.render(tool.toolName(), tool.tool().description(), tool.tool().inputSchema()))
                .collect(Collectors.joining("\n"));
    }
}
