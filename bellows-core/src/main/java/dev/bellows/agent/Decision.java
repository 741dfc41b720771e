package dev.bellows.agent;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The answer to one {@link WaitingCall} of a stopped run, given to
 * {@link DefaultAgent#resume(Session, java.util.List)}: approve it (as the model wrote it, or
 * with edited arguments), deny it with a reason the model reads, or, for a call carried out
 * outside the run, give its result.
 *
 * <pre>{@code
 * agent.resume(session, List.of(
 *         Decision.approve("call_3_1"),
 *         Decision.deny("call_3_2", "use the staging folder"))).await();
 * }</pre>
 */
public sealed interface Decision permits Decision.Approve, Decision.Deny, Decision.Respond {

    /** The id of the waiting call this answers. */
    String callId();

    /** Runs the call, as the model wrote it. */
    static Approve approve(String callId) {
        return new Approve(callId, null);
    }

    /** Runs the call with these arguments instead, checked against the tool's schema first. */
    static Approve approve(String callId, JsonNode arguments) {
        return new Approve(callId, Objects.requireNonNull(arguments, "arguments"));
    }

    /** Does not run the call; the model reads that the user denied it, with the reason. */
    static Deny deny(String callId, String reason) {
        return new Deny(callId, reason);
    }

    /** The result of a call carried out outside the run (a {@link WaitingCall.Kind#EXTERNAL} one). */
    static Respond respond(String callId, String result) {
        return new Respond(callId, result);
    }

    /**
     * Run the call.
     *
     * @param callId    the call's id
     * @param arguments the arguments (a JSON object) to run it with instead of the model's, or null
     *                  for the model's; the record keeps them frozen (read-only, a copy unless
     *                  frozen already), so the caller's tree is never shared
     */
    record Approve(String callId, JsonNode arguments) implements Decision {
        public Approve {
            Objects.requireNonNull(callId, "callId");
            if (arguments != null && !arguments.isObject()) {
                throw new IllegalArgumentException("arguments must be a JSON object, not " + arguments.getNodeType());
            }
            arguments = arguments == null ? null : FrozenJson.freeze(arguments);
        }
    }

    /**
     * Do not run the call.
     *
     * @param callId the call's id
     * @param reason why, for the model; empty for none
     */
    record Deny(String callId, String reason) implements Decision {
        public Deny {
            Objects.requireNonNull(callId, "callId");
            reason = reason == null ? "" : reason;
        }
    }

    /**
     * The result of a call carried out elsewhere.
     *
     * @param callId the call's id
     * @param result the result as the model reads it
     */
    record Respond(String callId, String result) implements Decision {
        public Respond {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(result, "result");
        }
    }
}
