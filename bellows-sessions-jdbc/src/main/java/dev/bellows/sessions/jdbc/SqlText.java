package dev.bellows.sessions.jdbc;

import java.util.Objects;

/**
 * The pieces of SQL in which the databases differ; {@link JdbcSessionStore} writes every
 * statement around them, so that a statement is written once for all databases.
 *
 * @param tablePrefix    put before each table's name ({@code sessions}, {@code turns},
 *                       {@code messages}, {@code waiting_log}): {@code ""} or {@code bellows_}
 * @param now            an expression for the current time, as the timestamp columns hold it
 * @param forUpdate      added after a {@code SELECT} of one session's row that must lock the
 *                       row until the transaction ends ({@code ""} where a write transaction
 *                       already excludes every other writer)
 * @param metadataText   the {@code metadata} column read as JSON text
 * @param mergeMetadata  an expression of the {@code metadata} column with the JSON object of
 *                       one parameter ({@code ?}) merged into it, its keys replacing the
 *                       column's
 * @param generation     an expression for the session's generation, the count of its clears
 *                       (a constant where handles are exclusive and never read again)
 * @param bumpGeneration added to the {@code SET} list of a clear: raises the generation
 *                       ({@code ""} where there is none)
 */
public record SqlText(String tablePrefix, String now, String forUpdate, String metadataText, String mergeMetadata,
                      String generation, String bumpGeneration) {

    /** Checks that every piece is there. */
    public SqlText {
        Objects.requireNonNull(tablePrefix, "tablePrefix");
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(forUpdate, "forUpdate");
        Objects.requireNonNull(metadataText, "metadataText");
        Objects.requireNonNull(mergeMetadata, "mergeMetadata");
        Objects.requireNonNull(generation, "generation");
        Objects.requireNonNull(bumpGeneration, "bumpGeneration");
    }
}
