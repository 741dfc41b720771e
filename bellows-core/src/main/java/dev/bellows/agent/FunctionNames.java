package dev.bellows.agent;

import dev.bellows.provider.ToolSpec;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The names the tools of a registry are offered under natively: the APIs allow
 * {@code [A-Za-z0-9_-]{1,64}} and one namespace, the registry has servers. A local tool keeps
 * its name; a server's tool is {@code server__tool}; characters the APIs refuse become
 * {@code _}, and a name taken twice gets a number. The same registry always gives the same
 * names, so the request's offer and the reader of its answer agree.
 */
final class FunctionNames {

    private static final int MAX = 64;

    private final Map<String, RegisteredTool> byName = new LinkedHashMap<>();

    FunctionNames(ToolRegistry tools) {
        for (RegisteredTool tool : tools.tools()) {
            String base = sanitize(tool.serverName().equals(ToolCall.LOCAL_SERVER)
                    ? tool.toolName()
                    : tool.serverName() + "__" + tool.toolName());
            String name = base;
            for (int n = 2; byName.containsKey(name); n++) {
                String suffix = "_" + n;
                name = base.substring(0, Math.min(base.length(), MAX - suffix.length())) + suffix;
            }
            byName.put(name, tool);
        }
    }

    List<ToolSpec> specs() {
        List<ToolSpec> specs = new ArrayList<>(byName.size());
        byName.forEach((name, tool) -> specs.add(new ToolSpec(name,
                tool.tool().description() == null ? "" : tool.tool().description(), tool.tool().inputSchema())));
        return specs;
    }

    /** The registry's (server, tool) for a function name; an unknown name stays a local tool of that name. */
    String[] resolve(String function) {
        RegisteredTool tool = byName.get(function);
        return tool == null
                ? new String[] {ToolCall.LOCAL_SERVER, function}
                : new String[] {tool.serverName(), tool.toolName()};
    }

    private static String sanitize(String name) {
        StringBuilder out = new StringBuilder(Math.min(name.length(), MAX));
        for (int i = 0; i < name.length() && out.length() < MAX; i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            out.append(ok ? c : '_');
        }
        return out.isEmpty() ? "_" : out.toString();
    }
}
