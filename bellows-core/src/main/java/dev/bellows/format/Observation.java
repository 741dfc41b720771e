package dev.bellows.format;

import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolCallOutcome.Cancelled;
import dev.bellows.tool.ToolCallOutcome.Deferred;
import dev.bellows.tool.ToolCallOutcome.Denied;
import dev.bellows.tool.ToolCallOutcome.Failed;
import dev.bellows.tool.ToolCallOutcome.Succeeded;
import java.util.List;
import java.util.Objects;

/**
 * Writes the outcomes of a batch of tool calls ({@link dev.bellows.tool.chain.ToolChain}) as one
 * observation for the model, in a {@link TextFormat}:
 *
 * <pre>
 * &lt;observation&gt;
 * &lt;search&gt;
 * {"hits":3}
 * &lt;/search&gt;
 * &lt;read_file&gt;
 * &lt;error&gt;
 * file 'a.txt' does not exist
 * &lt;/error&gt;
 * &lt;/read_file&gt;
 * &lt;error&gt;
 * (a call that could not be decoded, so has no tool name)
 * &lt;/error&gt;
 * &lt;/observation&gt;
 * </pre>
 *
 * Every call that names a tool gets a section named after the tool (as the spec asks: each
 * observation names the tool), and a failure puts its message in an {@code error} section
 * inside it, so the model cannot mistake an error for output (a call a person denied too).
 *
 * <pre>{@code
 * ToolChainResult result = new ToolChain(registry).execute(calls);
 * String observation = Observation.format(new XmlFormat(), result.outcomes());
 * }</pre>
 */
public final class Observation {

    static final String OBSERVATION = "observation";
    static final String ERROR = "error";

    private Observation() {
    }

    /**
     * The observation of a batch: every call's section inside an {@code observation} section;
     * empty when there were no calls.
     */
    public static String format(TextFormat format, List<? extends ToolCallOutcome> outcomes) {
        Objects.requireNonNull(format, "format");
        if (outcomes.isEmpty()) {
            return "";
        }
        // a loop, not a stream: once per tool step, where the loop's stream was never optimized away
        FormattedSection[] calls = new FormattedSection[outcomes.size()];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = section(outcomes.get(i));
        }
        return format.formatSections(List.of(FormattedSection.of(OBSERVATION, List.of(calls))));
    }

    private static FormattedSection section(ToolCallOutcome outcome) {
        return switch (outcome) {
            case Succeeded s -> new FormattedSection(sectionName(s.call()), s.text());
            case Cancelled c -> new FormattedSection(sectionName(c.call()), c.text());
            case Deferred d -> new FormattedSection(sectionName(d.call()), d.text());
            case Denied d -> FormattedSection.of(sectionName(d.call()), List.of(new FormattedSection(ERROR, d.text())));
            case Failed f when f.call() instanceof ToolCall call ->
                    FormattedSection.of(sectionName(call), List.of(new FormattedSection(ERROR, f.error())));
            case Failed f -> new FormattedSection(ERROR, f.error());
        };
    }

    /**
     * The tool name, qualified by its server unless local (two MCP servers may both have a
     * {@code search}), made a valid section name: the model may call a tool that does not exist
     * by any name at all.
     */
    static String sectionName(ToolCall call) {
        String name = ToolCall.LOCAL_SERVER.equals(call.serverName())
                ? call.toolName()
                : call.serverName() + "." + call.toolName();
        return SectionNames.sanitize(name);
    }
}
