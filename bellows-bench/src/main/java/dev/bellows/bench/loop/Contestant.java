package dev.bellows.bench.loop;

/**
 * One way of running the comparison's task (ask the model, run the {@code add} tool it calls,
 * ask again, return the final answer): a framework as its users would set it up, or the
 * hand-written floor. Every call runs one whole task on the calling thread's behalf and
 * returns the final answer, which the harness checks.
 *
 * <p>Implementations set up everything reusable once, in their constructor (HTTP clients,
 * models, agents where the framework allows one for many tasks), and are safe to call from
 * many threads at once.
 */
interface Contestant extends AutoCloseable {

    /** The name in the report. */
    String name();

    /** Model requests one task makes: the floor's and every framework's must agree. */
    default int iterationsPerTask() {
        return 2;
    }

    /** Runs one task and returns its final answer. */
    String runTask() throws Exception;

    @Override
    default void close() throws Exception {
    }
}
