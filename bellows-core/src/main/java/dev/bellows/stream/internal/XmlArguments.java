package dev.bellows.stream.internal;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns an {@code <arguments>} element into the arguments object.
 *
 * <p>With child elements, each child is one argument: its name is the key, its value
 * its exact, untrimmed text (a child that is, once trimmed, exactly one CDATA section
 * gets that section's content), or a nested object when it has element children. A name
 * used several times gives an array, in order, at the place of its first use.
 *
 * <p>Without child elements, the text is JSON: whitespace only means {@code {}},
 * anything else must be a JSON object.
 *
 * <p>Mixed content, where an element has child elements and also text that is not
 * whitespace (in text or CDATA), is an error, at every level. Neither reading is safe
 * to guess: dropping the text loses data silently, and taking the markup as text would
 * make {@code <body><b>x</b></body>} an object but {@code <body>Hi <b>x</b></body>} a
 * string. Typically the model meant markup as a string value, and the error tells it to
 * wrap that in CDATA. Whitespace between child elements is layout and ignored.
 */
final class XmlArguments {

    private XmlArguments() {
    }

    static ObjectNode toObject(XmlNode.Element arguments, String content, int start) {
        if (arguments.hasElementChildren()) {
            return object(arguments, content, start);
        }
        String text = arguments.text();
        if (ContentText.isBlank(text)) {
            return StrictJson.emptyObject();
        }
        JsonNode value;
        try {
            value = StrictJson.read(text);
        } catch (SyntaxError e) {
            throw new DecodeFailure("<arguments> holds text that is not a valid JSON object (at "
                    + ContentText.position(text, e.offset()) + " of that text: " + e.problem() + "); "
                    + "write a JSON object, or one child element per argument like <arguments><city>Paris</city></arguments>");
        }
        if (value instanceof ObjectNode object) {
            return object;
        }
        throw new DecodeFailure("<arguments> holds " + JsonToolCallDecoder.describe(value)
                + " as JSON, not an object; write a JSON object like {\"city\": \"Paris\"}, "
                + "or one child element per argument like <arguments><city>Paris</city></arguments>");
    }

    /** An element with element children as an object; depth is bounded by the reader. */
    private static ObjectNode object(XmlNode.Element element, String content, int start) {
        if (element.hasNonBlankText()) {
            throw new DecodeFailure("<" + element.name() + "> (at " + ContentText.position(content, start + element.offset())
                    + ") mixes text with child elements: give it either only child elements, one per field, "
                    + "or only text; wrap text that contains markup in <![CDATA[...]]>");
        }
        Map<String, List<XmlNode.Element>> byName = new LinkedHashMap<>();
        for (XmlNode child : element.children()) {
            if (child instanceof XmlNode.Element field) {
                byName.computeIfAbsent(field.name(), name -> new ArrayList<>(1)).add(field);
            }
        }
        ObjectNode object = StrictJson.emptyObject();
        for (Map.Entry<String, List<XmlNode.Element>> entry : byName.entrySet()) {
            List<XmlNode.Element> fields = entry.getValue();
            if (fields.size() == 1) {
                object.set(entry.getKey(), value(fields.get(0), content, start));
            } else {
                ArrayNode array = object.putArray(entry.getKey());
                for (XmlNode.Element field : fields) {
                    array.add(value(field, content, start));
                }
            }
        }
        return object;
    }

    private static JsonNode value(XmlNode.Element field, String content, int start) {
        if (field.hasElementChildren()) {
            return object(field, content, start);
        }
        return StringNode.valueOf(onlyCData(field.children()) ? soleCData(field.children()) : field.text());
    }

    /** Whether the children are exactly one CDATA section, give or take whitespace text. */
    private static boolean onlyCData(List<XmlNode> children) {
        int sections = 0;
        for (XmlNode child : children) {
            if (child instanceof XmlNode.CData) {
                sections++;
            } else if (!(child instanceof XmlNode.Text text) || !ContentText.isBlank(text.value())) {
                return false;
            }
        }
        return sections == 1;
    }

    private static String soleCData(List<XmlNode> children) {
        for (XmlNode child : children) {
            if (child instanceof XmlNode.CData cdata) {
                return cdata.value();
            }
        }
        return "";
    }
}
