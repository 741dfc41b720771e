package dev.bellows.mcp;

/**
 * Answers a server's {@code elicitation/create} (form mode): a question to the user with a
 * flat JSON Schema of the fields to fill in. The command line asks a person at the terminal,
 * fills in the defaults, or declines; a server program may turn it into a question in its own
 * protocol. Whatever the handler accepts, Bellows adds the default of each field left out
 * (SEP-1034) before it answers.
 *
 * <p>Called on a thread of its own, one request at a time per server; it may block as long
 * as a person takes (the call's timeout does not run meanwhile). An exception declines.
 */
@FunctionalInterface
public interface ElicitationHandler {

    /** The answer to one request. */
    ElicitationResult elicit(ElicitationRequest request) throws InterruptedException;

    /** Declines every request: nobody is there to answer. */
    ElicitationHandler DECLINE = request -> new ElicitationResult.Decline();

    /** Accepts at once with each field's default; declines when a required field has none. */
    ElicitationHandler DEFAULTS = request -> request.defaults()
            .<ElicitationResult>map(ElicitationResult.Accept::new)
            .orElseGet(ElicitationResult.Decline::new);
}
