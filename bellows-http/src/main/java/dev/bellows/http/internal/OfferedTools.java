package dev.bellows.http.internal;

import tools.jackson.databind.JsonNode;
import dev.bellows.provider.ToolSpec;
import java.util.List;

/**
 * Internal to the Bellows providers, not for users (it may change in any release): the tools
 * a request offered, kept with an encoding of them so that the next request's tools can be
 * recognised and the encoding reused. Holds the same {@link ToolSpec} instances and copies of
 * their schemas, taken when this is made: a schema changed in place since is noticed. Never
 * changed after it is made.
 */
public final class OfferedTools {

    private final ToolSpec[] specs;
    private final JsonNode[] schemas;

    private OfferedTools(ToolSpec[] specs, JsonNode[] schemas) {
        this.specs = specs;
        this.schemas = schemas;
    }

    /** The tools as offered now, their schemas copied. */
    public static OfferedTools copyOf(List<ToolSpec> offered) {
        ToolSpec[] specs = offered.toArray(new ToolSpec[0]);
        JsonNode[] schemas = new JsonNode[specs.length];
        for (int i = 0; i < specs.length; i++) {
            schemas[i] = specs[i].parameters().deepCopy();
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

    /**
     * The copy of the tool's schema: write the encoding from it, so the bytes are what
     * {@link #sameAs} compares with. Never change it.
     */
    public JsonNode schema(int index) {
        return schemas[index];
    }

    /** Whether {@code offered} are the same tool instances, in order, with unchanged schemas. */
    public boolean sameAs(List<ToolSpec> offered) {
        if (offered.size() != specs.length) {
            return false;
        }
        for (int i = 0; i < specs.length; i++) {
            if (offered.get(i) != specs[i] || !schemas[i].equals(specs[i].parameters())) {
                return false;
            }
        }
        return true;
    }
}
