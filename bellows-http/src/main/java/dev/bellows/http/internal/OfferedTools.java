package dev.bellows.http.internal;

import tools.jackson.databind.JsonNode;
import dev.bellows.provider.ToolSpec;
import java.util.List;

/**
 * Internal to the Bellows providers, not for users (it may change in any release): the tools
 * a request offered, kept with an encoding of them so that the next request's tools can be
 * recognised and the encoding reused. Holds the same {@link ToolSpec} instances; their schemas
 * are frozen (a {@code ToolSpec} keeps a read-only tree), so the same instances mean the same
 * schemas, and recognising them takes no copy and no comparison of trees. Never changed after
 * it is made.
 */
public final class OfferedTools {

    private final ToolSpec[] specs;
    private final JsonNode[] schemas;

    private OfferedTools(ToolSpec[] specs, JsonNode[] schemas) {
        this.specs = specs;
        this.schemas = schemas;
    }

    /** The tools as offered now (their frozen schemas shared, not copied). */
    public static OfferedTools copyOf(List<ToolSpec> offered) {
        ToolSpec[] specs = offered.toArray(new ToolSpec[0]);
        JsonNode[] schemas = new JsonNode[specs.length];
        for (int i = 0; i < specs.length; i++) {
            schemas[i] = specs[i].parameters();
        }
        return new OfferedTools(specs, schemas);
    }

    /** How many tools. */
    public int size() {
        return specs.length;
    }

    /** The tool at {@code index}, as offered. */
    public ToolSpec tool(int index) {
        return specs[index];
    }

    /** The tool's schema (frozen), to write the encoding from. */
    public JsonNode schema(int index) {
        return schemas[index];
    }

    /** Whether {@code offered} are the same tool instances, in order (so with the same schemas: they are frozen). */
    public boolean sameAs(List<ToolSpec> offered) {
        if (offered.size() != specs.length) {
            return false;
        }
        for (int i = 0; i < specs.length; i++) {
            if (offered.get(i) != specs[i]) {
                return false;
            }
        }
        return true;
    }
}
