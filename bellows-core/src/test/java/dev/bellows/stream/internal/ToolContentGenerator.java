package dev.bellows.stream.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Writes random tool block contents whose early name is known, for the properties of
 * {@link ToolNameSnifferTest}: JSON objects with the name member among others (nested name
 * keys, strings full of braces and quotes, random escapes) and XML elements (entities,
 * character references, CDATA), each maybe behind leading whitespace and a Markdown fence.
 * About one in five has no name by the spec's rules (a non-string first name member,
 * {@code <arguments} first, an empty value or one holding {@code <}).
 */
final class ToolContentGenerator {

    /**
     * One generated tool block content.
     *
     * @param text     the whole content, as the processor feeds it
     * @param body     the JSON object or XML elements inside the optional fence
     * @param name     the name the sniffer must report, or null
     * @param nameKey  JSON only: the top-level key holding the name
     * @param decisive index in text of the character that completes the name, or -1
     */
    record ToolContent(String text, String body, String name, String nameKey, boolean json, int decisive) {

        @Override
        public String toString() {
            return (json ? "JSON " : "XML ") + text.replace("\n", "\\n").replace("\r", "\\r")
                    + " -> " + name + " @" + decisive;
        }
    }

    private static final List<String> NAME_KEYS = List.of("tool_name", "name", "tool");
    /** Top-level keys that are not name keys, some deceptively close. */
    private static final List<String> OTHER_KEYS =
            List.of("server_name", "arguments", "args", "note", "names", "tool_id", "Name", "nam", "toolname");
    private static final List<String> NESTED_KEYS = List.of("name", "tool", "tool_name", "path", "x");
    private static final List<String> JSON_NAME_CHARS = List.of("a", "b", "z", "_", "-", ".", "/", "\"",
            "\\", "é", "😀", "{", "}", "[", ":", ",", " ", "<", "0", "\n", "\r", "\t", "\b", "\f", "\u0001");
    private static final List<String> FILLER_STRINGS = List.of("name", "tool", "{", "}", "[", "]", ",", ":",
            "\"", "\\", "<tool_name>", "é", "😀", "x y");
    private static final List<String> XML_NAME_CHARS = List.of("a", "b", "z", "_", "-", ".", "é", "😀", "&",
            ">", "\"", "'", "]", " ", "/", "{");
    private static final List<String> XML_BLANKS = List.of(" ", "\t", "\n", "\r\n", "&#32;", "&#x9;",
            "<![CDATA[ ]]>");

    private final Random random;
    private final StringBuilder out = new StringBuilder();
    private int decisive = -1;

    ToolContentGenerator(Random random) {
        this.random = random;
    }

    ToolContent json() {
        boolean fenced = preamble("json");
        int bodyStart = out.length();
        out.append('{');
        blanks();
        List<Runnable> members = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            members.add(() -> member(pick(OTHER_KEYS), () -> jsonValue(0)));
        }
        String nameKey = pick(NAME_KEYS);
        String[] name = new String[1];
        boolean named = random.nextInt(10) < 8;
        members.add(() -> member(nameKey, () -> {
            if (named) {
                name[0] = randomName(JSON_NAME_CHARS, false);
                out.append('"').append(jsonStringBody(name[0]));
                decisive = out.length();
                out.append('"');
            } else {
                // Not a non-empty string: the first name member decides, so no name at all.
                out.append(pick(List.of("5", "null", "true", "\"\"", "{\"name\": \"x\"}", "[\"x\"]")));
            }
        }));
        if (!named) {
            // A later, valid name member must not count.
            members.add(() -> member(pick(NAME_KEYS), () -> out.append("\"late\"")));
        }
        for (int i = random.nextInt(3); i > 0; i--) {
            members.add(() -> member(pick(OTHER_KEYS), () -> jsonValue(0)));
        }
        for (int i = 0; i < members.size(); i++) {
            if (i > 0) {
                out.append(',');
                blanks();
            }
            members.get(i).run();
        }
        blanks();
        out.append('}');
        return finish(fenced, bodyStart, name[0], nameKey, true);
    }

    ToolContent xml() {
        boolean fenced = preamble("xml");
        int bodyStart = out.length();
        if (random.nextBoolean()) {
            out.append("<server_name>local</server_name>");
            blanks();
        }
        if (random.nextInt(3) == 0) {
            out.append(pick(List.of("<note>a &amp; b &lt;arguments&gt;</note>", "<argument>x</argument>",
                    "<note><![CDATA[{\"name\": \"x\"}]]></note>", "<tool_names>x</tool_names>")));
            blanks();
        }
        String name = null;
        if (random.nextInt(10) < 8) {
            name = randomName(XML_NAME_CHARS, true);
            out.append("<tool_name>");
            xmlBlanks();
            out.append(xmlText(name));
            xmlBlanks();
            out.append("</tool_name");
            decisive = out.length();
            out.append('>');
        } else {
            out.append(pick(List.of(
                    "<arguments>{}</arguments><tool_name>x</tool_name>",
                    "<arguments a=\"1\"/><tool_name>x</tool_name>",
                    "<tool_name> &#32;</tool_name><tool_name>x</tool_name>",
                    "<tool_name>a&lt;b</tool_name>",
                    "<tool_name><![CDATA[a<b]]></tool_name>",
                    "<tool_name>a<b/></tool_name>")));
        }
        blanks();
        if (random.nextBoolean()) {
            out.append(pick(List.of(
                    "<arguments><path>a</path><tool_name>other</tool_name><name>x</name></arguments>",
                    "<arguments>{\"name\": \"x\"}</arguments>",
                    "<arguments><![CDATA[</tool_name>]]></arguments>")));
        }
        return finish(fenced, bodyStart, name, null, false);
    }

    /** Leading whitespace and maybe a fence line; true if fenced. */
    private boolean preamble(String language) {
        blanks();
        boolean fenced = random.nextInt(4) == 0;
        if (fenced) {
            out.append("```").append(random.nextBoolean() ? language : "").append(random.nextBoolean() ? "\n" : "\r\n");
            blanks();
        }
        return fenced;
    }

    private ToolContent finish(boolean fenced, int bodyStart, String name, String nameKey, boolean json) {
        String body = out.substring(bodyStart);
        blanks();
        if (fenced) {
            out.append("\n```");
            blanks();
        }
        return new ToolContent(out.toString(), body, name, nameKey, json, name == null ? -1 : decisive);
    }

    private void member(String key, Runnable value) {
        out.append('"').append(jsonStringBody(key)).append('"');
        blanks();
        out.append(':');
        blanks();
        value.run();
    }

    private void jsonValue(int depth) {
        int kind = random.nextInt(depth < 2 ? 6 : 3);
        switch (kind) {
            case 0 -> out.append(pick(List.of("0", "-12.5e3", "42")));
            case 1 -> out.append(pick(List.of("true", "false", "null")));
            case 2 -> out.append('"').append(jsonStringBody(randomName(FILLER_STRINGS, false))).append('"');
            case 3, 4 -> {
                out.append('{');
                for (int i = random.nextInt(3); i > 0; i--) {
                    member(pick(NESTED_KEYS), () -> jsonValue(depth + 1));
                    if (i > 1) {
                        out.append(',');
                    }
                }
                out.append('}');
            }
            default -> {
                out.append('[');
                for (int i = random.nextInt(3); i > 0; i--) {
                    jsonValue(depth + 1);
                    if (i > 1) {
                        out.append(", ");
                    }
                }
                out.append(']');
            }
        }
    }

    /** A JSON string's body for the text, each character written plainly or escaped at random. */
    private String jsonStringBody(String text) {
        StringBuilder body = new StringBuilder();
        text.codePoints().forEach(cp -> {
            String shortEscape = switch (cp) {
                case '"' -> "\\\"";
                case '\\' -> "\\\\";
                case '/' -> "\\/";
                case '\b' -> "\\b";
                case '\f' -> "\\f";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> null;
            };
            boolean mustEscape = cp == '"' || cp == '\\' || cp < 0x20;
            int choice = random.nextInt(10);
            if (!mustEscape && choice < 6) {
                body.appendCodePoint(cp);
            } else if (shortEscape != null && choice < 8) {
                body.append(shortEscape);
            } else {
                for (char unit : Character.toChars(cp)) {
                    String hex = String.format("\\u%04x", (int) unit);
                    body.append(random.nextBoolean() ? hex : hex.toUpperCase(Locale.ROOT).replace("\\U", "\\u"));
                }
            }
        });
        return body.toString();
    }

    /**
     * XML element text that decodes to the name: each character plain, as an entity, as a
     * character reference, or inside a CDATA section, which may run over several characters.
     */
    private String xmlText(String text) {
        StringBuilder xml = new StringBuilder();
        boolean inCdata = false;
        for (int cp : text.codePoints().toArray()) {
            int choice = random.nextInt(10);
            if (choice == 9) {
                // Never write "]]>" inside the section: close it and open a new one first.
                if (inCdata && cp == '>' && xml.toString().endsWith("]]")) {
                    xml.append("]]><![CDATA[");
                }
                if (!inCdata) {
                    xml.append("<![CDATA[");
                    inCdata = true;
                }
                xml.appendCodePoint(cp);
                continue;
            }
            if (inCdata) {
                xml.append("]]>");
                inCdata = false;
            }
            if (random.nextInt(8) == 0) {
                xml.append("<![CDATA[]]>");
            }
            String entity = switch (cp) {
                case '&' -> "&amp;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&apos;";
                default -> null;
            };
            // '&' must be escaped; '>' is, so that "]]>" never appears in plain text.
            boolean plainAllowed = cp != '&' && cp != '>';
            if (plainAllowed && choice < 5) {
                xml.appendCodePoint(cp);
            } else if (entity != null && choice < 7) {
                xml.append(entity);
            } else if (choice % 2 == 0) {
                xml.append("&#").append("0".repeat(random.nextInt(2))).append(cp).append(';');
            } else {
                String hex = Integer.toHexString(cp);
                xml.append("&#x").append(random.nextBoolean() ? hex : hex.toUpperCase(Locale.ROOT)).append(';');
            }
        }
        if (inCdata) {
            xml.append("]]>");
        }
        return xml.toString();
    }

    /** 1 to 8 pieces; for XML, never blank at either end (the value is trimmed). */
    private String randomName(List<String> pieces, boolean trimmed) {
        StringBuilder name = new StringBuilder();
        for (int i = 1 + random.nextInt(8); i > 0; i--) {
            name.append(pick(pieces));
        }
        String result = trimmed ? trim(name.toString()) : name.toString();
        return result.isEmpty() ? "t" : result;
    }

    private void blanks() {
        for (int i = random.nextInt(3); i > 0; i--) {
            out.append(pick(List.of(" ", "\t", "\n", "\r\n")));
        }
    }

    private void xmlBlanks() {
        for (int i = random.nextInt(3); i > 0; i--) {
            out.append(pick(XML_BLANKS));
        }
    }

    private <T> T pick(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    static String trim(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && ToolNameSniffer.isWhitespace(s.charAt(start))) {
            start++;
        }
        while (end > start && ToolNameSniffer.isWhitespace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }
}
