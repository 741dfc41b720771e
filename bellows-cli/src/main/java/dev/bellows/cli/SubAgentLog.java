package dev.bellows.cli;

import dev.bellows.agent.internal.SubAgentTrail;
import dev.bellows.event.LoopEvent;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

/**
 * A stored session's sub-agents' work ({@link SubAgentTrail}: kept by {@code run}, {@code chat}
 * and {@code serve}) shown by {@code bellows sessions show} as {@code bellows run}'s text output
 * showed it: its events replayed through {@link TextRenderer}, nested under lines naming the
 * agents.
 */
final class SubAgentLog {

    private SubAgentLog() {
    }

    /** The sub-agents' work kept in {@code metadata} for the calls {@code callIds}, in that order; empty when none. */
    static String render(Map<String, String> metadata, List<String> callIds) {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        TextRenderer renderer = new TextRenderer(out, false);
        for (String call : callIds) {
            for (LoopEvent.SubAgentEvent event : SubAgentTrail.events(metadata, call)) {
                renderer.onEvent(event);
            }
        }
        renderer.close();
        out.flush();
        return text.toString();
    }
}
