package dev.bellows.eval;

/**
 * Told of an evaluation's progress as runs finish, from the runs' threads, one call at a time
 * (the runner serialises them): a progress bar or log lines.
 */
public interface EvalProgress {

    /** Nothing shown. */
    EvalProgress NONE = new EvalProgress() {
    };

    /** Before the first run starts: how many runs there are in all. */
    default void started(int runs) {
    }

    /**
     * A run finished.
     *
     * @param done how many runs have finished, this one included
     */
    default void finished(String caseId, int index, boolean passed, int done, int runs) {
    }
}
