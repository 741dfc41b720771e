package dev.bellows.tool.internal;

import tools.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** The type names a schema's {@code type} keyword lists: one, several, or none. */
public final class SchemaTypes {

    private SchemaTypes() {
    }

    /** {@code "integer"} or {@code ["integer", "null"]} as a list; empty for none or anything else. */
    public static List<String> of(JsonNode type) {
        if (type == null) {
            return List.of();
        }
        if (type.isString()) {
            return List.of(type.stringValue(null));
        }
        List<String> types = new ArrayList<>();
        type.forEach(each -> {
            if (each.isString()) {
                types.add(each.stringValue(null));
            }
        });
        return types;
    }
}
