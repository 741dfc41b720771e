package dev.bellows.stream.internal;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.ToolCall;
import java.util.List;

/**
 * Decodes the XML element form of a tool call (docs/stream-format.md "Tool-call content"):
 * {@code <server_name>...</server_name><tool_name>...</tool_name><arguments>...</arguments>}.
 * Other top-level elements are ignored; a repeated one keeps its last occurrence.
 */
final class XmlToolCallDecoder {

    static final String HINT = "write <tool_name>...</tool_name><arguments>...</arguments>";

    private XmlToolCallDecoder() {
    }

    /** Decodes {@code content[start, end)}, which starts with '<'. */
    static ToolCall decode(String content, int start, int end) {
        String text = content.substring(start, end);
        List<XmlNode.Element> elements;
        try {
            elements = XmlElementReader.readSiblings(text);
        } catch (SyntaxError e) {
            throw new DecodeFailure("tool call XML is invalid at "
                    + ContentText.position(content, start + e.offset()) + ": " + e.problem());
        }

        XmlNode.Element serverName = null;
        XmlNode.Element toolName = null;
        XmlNode.Element arguments = null;
        for (XmlNode.Element element : elements) {
            switch (element.name()) {
                case "server_name" -> serverName = element;
                case "tool_name" -> toolName = element;
                case "arguments" -> arguments = element;
                default -> { } // other children are ignored, as the contract says
            }
        }

        if (toolName == null) {
            throw new DecodeFailure("tool call is missing <tool_name>; " + HINT);
        }
        String name = ContentText.trim(textOnly(toolName, content, start));
        if (name.isEmpty()) {
            throw new DecodeFailure("<tool_name> is empty: put the name of the tool to call in it");
        }
        String server = serverName == null ? "" : ContentText.trim(textOnly(serverName, content, start));
        ObjectNode args = arguments == null
                ? StrictJson.emptyObject()
                : XmlArguments.toObject(arguments, content, start);
        return new ToolCall(server.isEmpty() ? ToolCall.LOCAL_SERVER : server, name, args);
    }

    /** The text of a name element, which must not hold elements. */
    private static String textOnly(XmlNode.Element element, String content, int start) {
        for (XmlNode child : element.children()) {
            if (child instanceof XmlNode.Element inner) {
                throw new DecodeFailure("<" + element.name() + "> must hold only text, but holds <" + inner.name()
                        + "> (at " + ContentText.position(content, start + inner.offset())
                        + "); write &lt; for a literal '<'");
            }
        }
        return element.text();
    }
}
