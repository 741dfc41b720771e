package dev.bellows.prompt.internal;

import dev.bellows.prompt.ToolCatalogStyle;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolCall;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The list of tools in the system prompt, in a {@link ToolCatalogStyle}. With
 * {@link ToolCatalogStyle#JSON_SCHEMA} every server gets a heading, so each tool's server,
 * name, description and schema are all there; with {@link ToolCatalogStyle#SIGNATURES} the
 * servers are named only when some tool is not on server {@code local} (the parser's default).
 */
public final class ToolCatalog {

    private ToolCatalog() {
    }

    /**
     * True when the catalog names the servers, and so the rules must say how to write
     * {@code server_name}: always with JSON Schemas, with signatures when some tool is not on
     * server {@code local}.
     */
    public static boolean namesServers(List<RegisteredTool> tools, ToolCatalogStyle style) {
        return style == ToolCatalogStyle.JSON_SCHEMA
                ? !tools.isEmpty()
                : !tools.stream().allMatch(tool -> tool.serverName().equals(ToolCall.LOCAL_SERVER));
    }

    public static String render(List<RegisteredTool> tools, ToolCatalogStyle style) {
        if (tools.isEmpty()) {
            return "Tools: none.";
        }
        if (!namesServers(tools, style)) {
            return "Tools:\n" + entries(tools, style);
        }
        Map<String, List<RegisteredTool>> byServer = tools.stream().collect(
                Collectors.groupingBy(RegisteredTool::serverName, LinkedHashMap::new, Collectors.toList()));
        return byServer.entrySet().stream()
                .map(server -> "server_name \"" + server.getKey() + "\":\n" + entries(server.getValue(), style))
                .collect(Collectors.joining("\n\n"));
    }

    private static String entries(List<RegisteredTool> tools, ToolCatalogStyle style) {
        return tools.stream()
                .map(tool -> style == ToolCatalogStyle.JSON_SCHEMA
                        ? schemaEntry(tool)
                        : ToolSignature.render(tool.toolName(), tool.tool().description(), tool.tool().inputSchema()))
                .collect(Collectors.joining("\n"));
    }

    /**
     * {@code name: description}, then the schema as registered on a line of its own; the
     * description is kept whole, lines and all, and a blank one leaves the name alone.
     */
    private static String schemaEntry(RegisteredTool tool) {
        String description = tool.tool().description() == null ? "" : tool.tool().description().strip();
        String head = description.isEmpty() ? tool.toolName() : tool.toolName() + ": " + description;
        return head + "\n" + ToolSignature.compact(tool.tool().inputSchema());
    }
}
