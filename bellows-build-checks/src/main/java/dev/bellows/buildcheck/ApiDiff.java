package dev.bellows.buildcheck;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What changed between two API texts ({@link PublicApi}), one signature a line: a type's line as
 * it stands, a member's prefixed with its type's name ({@code dev.x.Type :: public void run()}),
 * so that each names the signature whole.
 */
final class ApiDiff {

    private ApiDiff() {
    }

    /** {@code "- "} and then {@code "+ "} lines: the signatures only in {@code recorded}, then only in {@code current}. */
    static List<String> between(List<String> recorded, List<String> current) {
        Set<String> before = signatures(recorded);
        Set<String> after = signatures(current);
        List<String> changes = new ArrayList<>();
        before.stream().filter(s -> !after.contains(s)).forEach(s -> changes.add("- " + s));
        after.stream().filter(s -> !before.contains(s)).forEach(s -> changes.add("+ " + s));
        return changes;
    }

    static Set<String> signatures(List<String> lines) {
        Set<String> signatures = new LinkedHashSet<>();
        String type = "";
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith(PublicApi.INDENT)) {
                signatures.add(type + " :: " + line.strip());
            } else {
                type = typeName(line);
                signatures.add(line);
            }
        }
        return signatures;
    }

    /** The type's name in its line: the word after its kind. */
    static String typeName(String header) {
        String[] words = header.split(" ");
        for (int i = 0; i < words.length - 1; i++) {
            if (List.of("class", "interface", "enum", "record", "@interface").contains(words[i])) {
                String name = words[i + 1];
                int end = name.length();
                for (char stop : new char[] {'<', '('}) {
                    int at = name.indexOf(stop);
                    if (at >= 0) {
                        end = Math.min(end, at);
                    }
                }
                return name.substring(0, end);
            }
        }
        return header;
    }
}
