package dev.bellows.mcp;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.secret.Secrets;
import dev.bellows.tool.Media;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Turns an MCP {@code CallToolResult} into what a Bellows tool returns: the text parts become
 * the output the model reads; images, audio and binary resources become {@link Media}; a text
 * resource is quoted with its URI; a resource link is named; {@code structuredContent} is the
 * output when there is no text (and is added after the text when the text says something
 * else). A result with {@code isError: true} is a {@link ToolException} whose message is the
 * server's text, so the model reads it as the tool's error.
 */
final class ResultMapper {

    static final ObjectMapper JSON = Jackson.JSON;

    private ResultMapper() {
    }

    static ToolResult<?> map(String server, String tool, McpSchema.CallToolResult result) throws ToolException {
        List<String> texts = new ArrayList<>();
        List<Media> media = new ArrayList<>();
        List<McpSchema.Content> content = result.content() == null ? List.of() : result.content();
        for (McpSchema.Content part : content) {
            switch (part) {
                case McpSchema.TextContent text -> texts.add(text.text() == null ? "" : text.text());
                case McpSchema.ImageContent image -> binary(image.mimeType(), image.data(), "image", media, texts);
                case McpSchema.AudioContent audio -> binary(audio.mimeType(), audio.data(), "audio", media, texts);
                case McpSchema.EmbeddedResource embedded -> resource(embedded.resource(), media, texts);
                case McpSchema.ResourceLink link -> texts.add("resource link: " + link.uri()
                        + (link.name() == null ? "" : " (" + link.name() + ")")
                        + (link.mimeType() == null ? "" : ", " + link.mimeType())
                        + (link.description() == null ? "" : ": " + link.description()));
                default -> texts.add("(a " + part.type() + " part Bellows cannot show)");
            }
        }
        // A server may echo the secrets it was given (its headers, its env): the model never reads them.
        String text = Secrets.redact(String.join("\n", texts).strip());
        JsonNode structured = result.structuredContent() == null ? null : redact(JSON.valueToTree(result.structuredContent()));
        if (Boolean.TRUE.equals(result.isError())) {
            String message = !text.isEmpty() ? text
                    : structured != null ? structured.toString()
                    : "tool \"" + tool + "\" of MCP server \"" + server + "\" reported an error without a message";
            throw new ToolException(message);
        }
        if (structured == null) {
            return new ToolResult<>(text.isEmpty() ? null : text, media);
        }
        if (text.isEmpty()) {
            return new ToolResult<>(structured, media);
        }
        // Servers should repeat structured content as JSON text; add it only when they did not.
        return new ToolResult<>(sameJson(text, structured) ? text : text + "\n" + structured, media);
    }

    private static JsonNode redact(JsonNode structured) {
        String json = structured.toString();
        if (!Secrets.appearIn(json)) {
            return structured;
        }
        try {
            return JSON.readTree(Secrets.redact(json));
        } catch (Exception e) {
            return JSON.getNodeFactory().stringNode(Secrets.redact(json));
        }
    }

    private static void binary(String mimeType, String base64, String kind, List<Media> media, List<String> texts) {
        String type = validType(mimeType, kind.equals("image") ? "image/png" : "application/octet-stream");
        try {
            media.add(new Media(type, Base64.getMimeDecoder().decode(base64 == null ? "" : base64)));
        } catch (IllegalArgumentException e) {
            texts.add("(an " + kind + " whose data is not valid base64 was left out)");
        }
    }

    private static void resource(McpSchema.ResourceContents resource, List<Media> media, List<String> texts) {
        switch (resource) {
            case McpSchema.TextResourceContents text -> texts.add("resource " + text.uri()
                    + (text.mimeType() == null ? "" : " (" + text.mimeType() + ")") + ":\n" + text.text());
            case McpSchema.BlobResourceContents blob -> {
                texts.add("resource " + blob.uri() + " (attached)");
                binary(blob.mimeType(), blob.blob(), "resource", media, texts);
            }
            default -> texts.add("resource " + resource.uri());
        }
    }

    private static String validType(String mimeType, String fallback) {
        if (mimeType == null || mimeType.isBlank() || mimeType.indexOf('/') < 1) {
            return fallback;
        }
        return mimeType.strip();
    }

    private static boolean sameJson(String text, JsonNode structured) {
        try {
            return structured.equals(JSON.readTree(text));
        } catch (Exception e) {
            return false;
        }
    }
}
