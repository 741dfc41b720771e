package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.format.ActionFormat;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.TextFormat;
import dev.bellows.format.TextFormatException;
import dev.bellows.format.XmlFormat;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.stream.StreamChunk;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The ReAct reader works while the answer streams, with the exactness the stream contract
 * asks of tags: wherever the answer is cut, the same events come out (sections, the action's
 * tool name, the stream events), each in the chunk holding the character that decided it, and
 * the same step for the loop; and the sections are exactly what {@link TextFormat#parse} finds
 * in the whole message text.
 */
class ReActReadingProperties {

    record Answer(boolean xml, String text) {
    }

    private static final Provider NEVER_CALLED = new Provider() {
        @Override
        public String name() {
            return "never";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            throw new AssertionError("the reader tests make no model call");
        }
    };

    private static final String[] FILLERS = {"I should read it.", "a < b and c > d", "# not a section", "#",
            "<b>bold</b>", "```json", "```", "{\"tool_name\": \"decoy\"}", "line one\nline two", "é😀", "  ", "\t"};

    @Provide
    Arbitrary<Answer> answers() {
        Arbitrary<String> names = Arbitraries.of("thought", "action", "answer", "Action", "notes");
        Arbitrary<String> tool = Arbitraries.of("read_file", "ask_question", "x", "weird name");
        Arbitrary<String> action = Combinators.combine(tool, Arbitraries.of("", "```json\n", " \n"),
                Arbitraries.of("{}", "{\"path\": \"a.txt\"}", "{\"q\": \"</action> # answer\"}"))
                .as((name, fence, args) -> fence + "{\"tool_name\": \"" + name + "\", \"arguments\": " + args + "}"
                        + (fence.startsWith("```") ? "\n```" : ""));
        Arbitrary<String> filler = Arbitraries.of(FILLERS).list().ofMaxSize(3).map(parts -> String.join("\n", parts));
        Arbitrary<String[]> section = Combinators.combine(names, action, filler)
                .as((name, call, text) -> new String[] {name,
                        name.equalsIgnoreCase("action") ? call : text});
        Arbitrary<List<String[]>> sections = section.list().ofMinSize(0).ofMaxSize(4);
        Arbitrary<String> preamble = Arbitraries.of("", "<thinking>plan it</thinking>\n", "Sure.\n", "\n");
        return Combinators.combine(Arbitraries.of(false, true), preamble, sections, Arbitraries.of("", "\n", "  "))
                .as((xml, pre, list, end) -> {
                    StringBuilder text = new StringBuilder(pre);
                    for (String[] s : list) {
                        text.append(xml ? "<" + s[0] + ">\n" + s[1] + "\n</" + s[0] + ">\n" : "# " + s[0] + "\n" + s[1] + "\n\n");
                    }
                    return new Answer(xml, text.append(end).toString());
                });
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(1, 400).list().ofMaxSize(30);
    }

    /** What one reading gave: the events and the step. */
    record Outcome(List<AgentEvent> events, AnswerReader.Reading reading) {
    }

    static Protocol protocol(boolean xml) {
        ReActAgent agent = ReActAgent.builder().provider(NEVER_CALLED).model("m")
                .textFormat(xml ? new XmlFormat() : new MarkdownFormat()).actionFormat(ActionFormat.JSON).build();
        return agent.agent().protocol;
    }

    static Outcome read(Protocol protocol, List<String> chunks) {
        List<AgentEvent> events = new ArrayList<>();
        AnswerReader reader = protocol.reader(new dev.bellows.tool.ToolRegistry(), events::add);
        chunks.forEach(chunk -> reader.accept(StreamChunk.message(chunk)));
        return new Outcome(events, reader.read());
    }

    /** The text cut at the given code-point offsets (never inside a surrogate pair). */
    static List<String> cut(String text, List<Integer> offsets) {
        TreeSet<Integer> at = new TreeSet<>();
        for (int offset : offsets) {
            if (offset < text.length() && !Character.isLowSurrogate(text.charAt(offset))) {
                at.add(offset);
            }
        }
        List<String> chunks = new ArrayList<>();
        int from = 0;
        for (int to : at) {
            chunks.add(text.substring(from, to));
            from = to;
        }
        chunks.add(text.substring(from));
        return chunks;
    }

    static List<String> oneCodePointEach(String text) {
        return text.codePoints().mapToObj(Character::toString).toList();
    }

    /** Events without the chunk index and the content deltas (their splitting is free; the ends hold their text). */
    static List<String> shape(List<AgentEvent> events) {
        List<String> out = new ArrayList<>();
        for (AgentEvent event : events) {
            String line = switch (event) {
                case StreamEvent.MessageContent m -> "message_content";
                case StreamEvent.ThinkingContent t -> "thinking_content";
                case StreamEvent.Section s -> "section " + s.name() + " " + s.content();
                case StreamEvent.ToolCallName n -> "tool_call_name " + n.toolName();
                case StreamEvent.MessageEnd m -> "message_end " + m.content();
                case StreamEvent.ThinkingEnd t -> "thinking_end " + t.content();
                default -> event.type();
            };
            if (!line.endsWith("_content")) {
                out.add(line);
            }
        }
        return out;
    }

    @Property(tries = 300)
    void the_same_events_and_step_wherever_the_answer_is_cut(@ForAll("answers") Answer answer,
                                                             @ForAll("cuts") List<Integer> offsets) {
        Protocol protocol = protocol(answer.xml());
        Outcome whole = read(protocol, List.of(answer.text()));
        Outcome cut = read(protocol, cut(answer.text(), offsets));
        assertThat(shape(cut.events())).isEqualTo(shape(whole.events()));
        assertThat(cut.reading()).isEqualTo(whole.reading());
    }

    @Property(tries = 300)
    void each_section_and_tool_name_comes_in_the_chunk_that_decided_it(@ForAll("answers") Answer answer,
                                                                       @ForAll("cuts") List<Integer> offsets) {
        Protocol protocol = protocol(answer.xml());
        List<String> single = oneCodePointEach(answer.text());
        List<AgentEvent> reference = decided(read(protocol, single).events());
        List<String> chunks = cut(answer.text(), offsets);
        List<AgentEvent> actual = decided(read(protocol, chunks).events());
        // code point index -> chunk index of the cut text
        List<Integer> chunkOf = new ArrayList<>();
        for (int c = 0; c < chunks.size(); c++) {
            for (int k = 0; k < chunks.get(c).codePointCount(0, chunks.get(c).length()); k++) {
                chunkOf.add(c);
            }
        }
        assertThat(actual).hasSameSizeAs(reference);
        for (int i = 0; i < reference.size(); i++) {
            int at = ((StreamEvent) reference.get(i)).chunk();
            int expected = at >= single.size() ? chunks.size() : chunkOf.get(at);
            assertThat(((StreamEvent) actual.get(i)).chunk()).as("chunk of %s", actual.get(i)).isEqualTo(expected);
        }
    }

    @Property(tries = 300)
    void the_sections_are_what_parse_finds_in_the_message_text(@ForAll("answers") Answer answer,
                                                               @ForAll("cuts") List<Integer> offsets) {
        TextFormat format = answer.xml() ? new XmlFormat() : new MarkdownFormat();
        ReActAgent agent = ReActAgent.builder().provider(NEVER_CALLED).model("m").textFormat(format).build();
        Outcome outcome = read(agent.agent().protocol, cut(answer.text(), offsets));
        List<String> streamed = outcome.events().stream().filter(StreamEvent.Section.class::isInstance)
                .map(e -> ((StreamEvent.Section) e).name() + "=" + ((StreamEvent.Section) e).content()).sorted().toList();
        List<String> parsed = new ArrayList<>();
        try {
            Map<String, List<String>> sections = agent.textFormat().parse(outcome.reading().text());
            sections.forEach((name, contents) -> contents.forEach(c -> parsed.add(name + "=" + c)));
        } catch (TextFormatException e) {
            assertThat(outcome.reading().step()).isInstanceOf(AnswerReader.Step.NoAction.class);
        }
        assertThat(streamed).isEqualTo(parsed.stream().sorted().toList());
    }

    @Example
    void the_action_tool_name_comes_before_the_action_is_complete() {
        Protocol protocol = protocol(false);
        List<String> chunks = List.of("# thought\nRead it.\n# action\n{\"tool_name\": \"read_", "file\", \"argu",
                "ments\": {\"path\": \"a.txt\"}}\n", "# answer\nlater");
        List<AgentEvent> events = decided(read(protocol, chunks).events());
        assertThat(events).containsExactly(
                new StreamEvent.Section(0, "thought", "Read it."),     // the complete "# action" line ends it
                new StreamEvent.ToolCallName(1, "read_file"),          // long before the action ends
                new StreamEvent.Section(3, "action", "{\"tool_name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}"),
                new StreamEvent.Section(4, "answer", "later"));       // only the end of the stream ends it
    }

    static List<AgentEvent> decided(List<AgentEvent> events) {
        return events.stream().filter(e -> e instanceof StreamEvent.Section || e instanceof StreamEvent.ToolCallName)
                .toList();
    }
}
