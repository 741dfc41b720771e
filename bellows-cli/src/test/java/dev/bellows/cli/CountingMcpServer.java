package dev.bellows.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An MCP server over stdio with one tool, {@code count}: each call appends one line (its
 * {@code text} argument) to the file named by the first argument, so a test counts, across every
 * worker process and its own server, how often each call was really made. Speaks just the part
 * of MCP a client needs: initialize, tools/list, tools/call, ping.
 */
public final class CountingMcpServer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CountingMcpServer() {
    }

    public static void main(String[] args) throws IOException {
        Path calls = Path.of(args[0]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode request = JSON.readTree(line);
            if (!request.has("id")) {
                continue;                       // a notification
            }
            ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
            response.set("id", request.get("id"));
            ObjectNode result = response.putObject("result");
            switch (request.path("method").asText()) {
                case "initialize" -> {
                    result.put("protocolVersion", request.path("params").path("protocolVersion").asText("2025-06-18"));
                    result.putObject("capabilities").putObject("tools");
                    result.putObject("serverInfo").put("name", "counting").put("version", "1");
                }
                case "tools/list" -> {
                    ObjectNode tool = result.putArray("tools").addObject();
                    tool.put("name", "count").put("description", "Records one call.");
                    ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
                    schema.putObject("properties").putObject("text").put("type", "string");
                }
                case "tools/call" -> {
                    String text = request.path("params").path("arguments").path("text").asText("");
                    Files.writeString(calls, text + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND, StandardOpenOption.SYNC);
                    result.putArray("content").addObject().put("type", "text").put("text", "counted " + text);
                }
                case "ping" -> { }
                default -> {
                    response.remove("result");
                    response.putObject("error").put("code", -32601).put("message", "no such method");
                }
            }
            out.println(JSON.writeValueAsString(response));
        }
    }
}
