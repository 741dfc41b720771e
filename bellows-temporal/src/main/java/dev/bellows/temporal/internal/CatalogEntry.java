package dev.bellows.temporal.internal;

import tools.jackson.databind.node.ObjectNode;

/**
 * A tool the workers offer, as a run records it once at its start: the loop in the workflow
 * looks tools up and checks arguments against this record, never against the worker's live
 * registry, so that replaying the run on another worker takes the same decisions.
 *
 * @param unavailable null for a tool; for a server that is down, the reason (and no tool)
 */
public record CatalogEntry(String serverName, String toolName, String description, ObjectNode inputSchema,
                           String unavailable) {
}
