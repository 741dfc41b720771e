package dev.bellows.stream.internal;

import java.util.List;

/**
 * The little XML tree {@link XmlElementReader} builds: elements, text with references
 * decoded, and CDATA sections kept apart from text (the arguments rule treats a child
 * that is exactly one CDATA section specially). Comments leave no node.
 */
sealed interface XmlNode {

    /**
     * An element; attributes are not kept because nothing reads them.
     *
     * @param offset where its open tag starts in the decoded content, for error positions
     */
    record Element(String name, List<XmlNode> children, int offset) implements XmlNode {

        boolean hasElementChildren() {
            for (XmlNode child : children) {
                if (child instanceof Element) {
                    return true;
                }
            }
            return false;
        }

        /** All text and CDATA content, in order (CDATA unwrapped in place). */
        String text() {
            StringBuilder out = new StringBuilder();
            for (XmlNode child : children) {
                switch (child) {
                    case Text text -> out.append(text.value());
                    case CData cdata -> out.append(cdata.value());
                    case Element ignored -> { }
                }
            }
            return out.toString();
        }

        /** Whether some text or CDATA content is not whitespace. */
        boolean hasNonBlankText() {
            for (XmlNode child : children) {
                String value = switch (child) {
                    case Text text -> text.value();
                    case CData cdata -> cdata.value();
                    case Element ignored -> "";
                };
                if (!ContentText.isBlank(value)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Character data between tags, with entity and character references decoded. */
    record Text(String value) implements XmlNode {
    }

    /** The literal content of a {@code <![CDATA[...]]>} section. */
    record CData(String value) implements XmlNode {
    }
}
