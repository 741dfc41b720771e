package dev.bellows.temporal.internal;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;

/**
 * A tool the workers offer, as a run records it once at its start: the loop in the workflow
 * looks tools up and checks arguments against this record, never against the worker's live
 * registry, so that replaying the run on another worker takes the same decisions.
 *
 * @param inputSchema the tool's schema, frozen (it is every replay's too); null for a server that is down
 * @param unavailable null for a tool; for a server that is down, the reason (and no tool)
 */
public record CatalogEntry(String serverName, String toolName, String description, JsonNode inputSchema,
                           String unavailable) {

    public CatalogEntry {
        inputSchema = inputSchema == null ? null : FrozenJson.freeze(inputSchema);
    }
}
