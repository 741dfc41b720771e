package dev.bellows.agent;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.stream.ArgumentEventsProperties.Member;
import dev.bellows.stream.ArgumentEventsProperties.Writer;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.ToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@code tool_call_argument} on the native path: the providers' tool-call deltas (OpenAI's
 * {@code tool_calls} argument pieces, Anthropic's {@code input_json_delta}), with arguments whose
 * member ends are known by construction, cut at every kind of place, calls one after another or
 * interleaved by index, the name in the first delta or a later one, and now and then a value that
 * is not JSON. Each member must be reported once, after its call's name and before its end, in
 * the delta that completes its value (or in the one that announces the name, for members that
 * completed before it), with the value the whole parse gives; nothing at or after a value that is
 * not JSON, nothing from a piece that comes after its call ended; and without the option the
 * events and the reading are the same, but for the argument events.
 */
class NativeArgumentEventsProperties {

    private static final ObjectMapper JSON = Jackson.JSON;

    /** Written calls, and the index of the frame where each of their arguments' pieces went. */
    private record Script(List<StreamChunk> frames, List<Written> calls) {
    }

    /** One call: its arguments' text, the members that may fire, and where its arguments are valid JSON. */
    private record Written(String name, String arguments, List<Member> members, boolean broken) {
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 1_000_000).list().ofMaxSize(30);
    }

    @Property(tries = 400)
    void eachMemberIsReportedOnceAfterItsNameBeforeItsEndInTheDeltaThatCompletesIt(@ForAll long seed,
            @ForAll("cuts") List<Integer> cuts) {
        Random random = new Random(seed);
        Script script = script(random, cuts);
        Protocol protocol = NativeReadingProperties.protocol(ToolMode.NATIVE);
        NativeReadingProperties.Outcome on = read((NativeProtocol) protocol, script.frames(), true);

        assertThat(reported(on.events())).as("%s", script).isEqualTo(expected(script).stream().map(Expected::key).toList());
        // each value is the JSON of its member as written, which the parse of the whole call gives
        List<ArgumentAt> actual = arguments(on.events());
        List<Expected> expected = expected(script);
        for (int i = 0; i < actual.size(); i++) {
            assertSameJson(actual.get(i).value(), readJson(expected.get(i).member().valueText()), script);
        }
        for (int i = 0; i < script.calls().size(); i++) {
            Written call = script.calls().get(i);
            if (!call.broken() && on.reading().step() instanceof AnswerReader.Step.Act act
                    && act.calls().get(i) instanceof ToolCall decoded) {
                for (ArgumentAt a : actual) {
                    if (a.call() == i && !repeated(call, a.name())) {
                        assertSameJson(a.value(), decoded.arguments().get(a.name()), script);
                    }
                }
            }
        }
    }

    @Property(tries = 300)
    void withoutTheOptionTheEventsAndTheReadingAreTheSameButForTheArguments(@ForAll long seed,
            @ForAll("cuts") List<Integer> cuts) {
        Script script = script(new Random(seed), cuts);
        NativeProtocol protocol = (NativeProtocol) NativeReadingProperties.protocol(ToolMode.NATIVE);
        NativeReadingProperties.Outcome on = read(protocol, script.frames(), true);
        NativeReadingProperties.Outcome off = read(protocol, script.frames(), false);
        assertThat(off.events()).noneMatch(StreamEvent.ToolCallArgument.class::isInstance);
        assertThat(on.events().stream().filter(e -> !(e instanceof StreamEvent.ToolCallArgument)).toList())
                .as("chunk indices included").isEqualTo(off.events());
        assertThat(on.reading()).isEqualTo(off.reading());
    }

    /** The loop turns the option on, so its native reader reports arguments. */
    @Example
    void theLoopsNativeReaderReportsArguments() {
        Protocol protocol = NativeReadingProperties.protocol(ToolMode.NATIVE);
        List<AgentEvent> events = new ArrayList<>();
        AnswerReader reader = protocol.reader(new dev.bellows.tool.ToolRegistry(), events::add);
        reader.accept(new StreamChunk.ToolCallDelta(0, "call_0", "write_file", ""));
        reader.accept(new StreamChunk.ToolCallDelta(0, null, null, "{\"path\": \"src/Ma"));
        reader.accept(new StreamChunk.ToolCallDelta(0, null, null, "in.java\", \"content\": \"cla"));
        reader.accept(new StreamChunk.ToolCallDelta(0, null, null, "ss A {}\"}"));
        reader.read();
        var nodes = JSON.getNodeFactory();
        assertThat(events).filteredOn(StreamEvent.ToolCallArgument.class::isInstance).containsExactly(
                new StreamEvent.ToolCallArgument(2, "path", nodes.stringNode("src/Main.java")),
                new StreamEvent.ToolCallArgument(3, "content", nodes.stringNode("class A {}")));
    }

    // ---- the script ----------------------------------------------------------------------

    private static Script script(Random random, List<Integer> cuts) {
        List<StreamChunk> frames = new ArrayList<>();
        if (random.nextInt(3) == 0) {
            frames.add(StreamChunk.message("Writing it."));
        }
        int count = 1 + random.nextInt(3);
        List<Written> calls = new ArrayList<>();
        List<List<StreamChunk>> perCall = new ArrayList<>();
        for (int index = 0; index < count; index++) {
            Writer w = new Writer(random);
            w.space();
            w.object(true);
            boolean broken = random.nextInt(4) == 0;
            String arguments = w.text.toString();
            if (broken) { // a value that is not JSON, then members that must not fire
                arguments = arguments.substring(0, arguments.length() - 1)
                        + pick(random, ", \"bad\": 01, \"late\": \"x\"}", ", \"bad\": tru, \"late\": 1}",
                        ", \"bad\": \"a\\x\", \"late\": 2}", ", \"bad\": NaN}", ",}", ", \"bad\": [1,], \"late\": 3}");
            }
            String name = pick(random, "read_file", "write_file", "search");
            calls.add(new Written(name, arguments, w.members, broken));
            List<StreamChunk> own = new ArrayList<>();
            boolean lateName = random.nextInt(5) == 0;
            List<String> pieces = random.nextInt(6) == 0 ? onePerCodePoint(arguments) : pieces(arguments, cuts, random);
            own.add(new StreamChunk.ToolCallDelta(index, "call_" + index, lateName ? null : name,
                    random.nextBoolean() ? "" : pieces.removeFirst()));
            for (int p = 0; p < pieces.size(); p++) {
                boolean nameHere = lateName && p == Math.min(pieces.size() - 1, random.nextInt(3));
                own.add(new StreamChunk.ToolCallDelta(index, null, nameHere ? name : null, pieces.get(p)));
                lateName &= !nameHere;
            }
            if (lateName) {
                own.add(new StreamChunk.ToolCallDelta(index, null, name, ""));
            }
            perCall.add(own);
        }
        if (random.nextInt(3) == 0) { // interleaved by index, each call's own order kept
            int[] next = new int[count];
            int left = perCall.stream().mapToInt(List::size).sum();
            while (left-- > 0) {
                int c;
                do {
                    c = random.nextInt(count);
                } while (next[c] == perCall.get(c).size());
                frames.add(perCall.get(c).get(next[c]++));
            }
        } else {
            perCall.forEach(frames::addAll);
        }
        if (random.nextInt(3) == 0) {
            frames.add(StreamChunk.message("Done."));
        }
        return new Script(frames, calls);
    }

    /** The arguments cut at code-point positions from the seeds (and a few of the random's own). */
    private static List<String> pieces(String text, List<Integer> seeds, Random random) {
        int[] codePoints = text.codePoints().toArray();
        TreeSet<Integer> at = new TreeSet<>();
        for (int seed : seeds) {
            int position = Math.floorMod(seed + random.nextInt(7), codePoints.length + 1);
            if (position > 0 && position < codePoints.length) {
                at.add(position);
            }
        }
        List<String> pieces = new ArrayList<>();
        int from = 0;
        for (int to : at) {
            pieces.add(new String(codePoints, from, to - from));
            from = to;
        }
        pieces.add(new String(codePoints, from, codePoints.length - from));
        return pieces;
    }

    private static List<String> onePerCodePoint(String text) {
        List<String> pieces = new ArrayList<>();
        text.codePoints().forEach(cp -> pieces.add(Character.toString(cp)));
        return pieces;
    }

    // ---- what must be reported -----------------------------------------------------------

    private record Expected(int call, Member member, int chunk) {
        String key() {
            return call + ":" + member.name() + "@" + chunk;
        }
    }

    /**
     * The model of the rules: the call that started last is open until the next call starts or
     * text comes; a member of the open call fires in the frame holding the character that
     * completes it, or in the frame that announces the name when it completed before.
     */
    private static List<Expected> expected(Script script) {
        List<Expected> out = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        Map<Integer, Integer> offset = new HashMap<>();
        Map<Integer, Boolean> named = new HashMap<>();
        Map<Integer, List<Member>> waiting = new HashMap<>(); // completed while open, before the name
        int open = -1;
        for (int frame = 0; frame < script.frames().size(); frame++) {
            StreamChunk chunk = script.frames().get(frame);
            if (chunk instanceof StreamChunk.Text text) {
                if (!text.text().isEmpty()) {
                    open = -1;
                }
                continue;
            }
            StreamChunk.ToolCallDelta delta = (StreamChunk.ToolCallDelta) chunk;
            int call = delta.index();
            if (seen.add(call)) {
                open = call;
                offset.put(call, 0);
                named.put(call, false);
                waiting.put(call, new ArrayList<>());
            }
            if (call == open && !named.get(call) && delta.name() != null) {
                named.put(call, true);
                for (Member m : waiting.get(call)) {
                    out.add(new Expected(call, m, frame));
                }
                waiting.get(call).clear();
            }
            int from = offset.get(call);
            int to = from + delta.arguments().length();
            offset.put(call, to);
            if (call != open) {
                continue; // a piece after the call ended: its events have gone out
            }
            for (Member m : script.calls().get(call).members()) {
                if (m.completedAt() >= from && m.completedAt() < to) {
                    if (named.get(call)) {
                        out.add(new Expected(call, m, frame));
                    } else {
                        waiting.get(call).add(m);
                    }
                }
            }
        }
        return out;
    }

    // ---- what was reported ---------------------------------------------------------------

    private record ArgumentAt(int call, String name, JsonNode value, int chunk) {
    }

    /** Each argument event with the call it belongs to, checking it came after that call's name and before its end. */
    private static List<ArgumentAt> arguments(List<AgentEvent> events) {
        List<ArgumentAt> out = new ArrayList<>();
        int call = -1;
        boolean named = false;
        boolean ended = true;
        for (AgentEvent event : events) {
            switch (event) {
                case StreamEvent.ToolCallStart s -> {
                    call = Integer.parseInt(s.attributes().get("id").substring("call_".length()));
                    named = false;
                    ended = false;
                }
                case StreamEvent.ToolCallName n -> named = true;
                case StreamEvent.ToolCallEnd e -> ended = true;
                case StreamEvent.ToolCallArgument a -> {
                    assertThat(named).as("%s after its call's name", a).isTrue();
                    assertThat(ended).as("%s before its call's end", a).isFalse();
                    out.add(new ArgumentAt(call, a.name(), a.value(), a.chunk()));
                }
                default -> { }
            }
        }
        return out;
    }

    private static List<String> reported(List<AgentEvent> events) {
        return arguments(events).stream().map(a -> a.call() + ":" + a.name() + "@" + a.chunk()).toList();
    }

    private static boolean repeated(Written call, String name) {
        return call.members().stream().filter(m -> m.name().equals(name)).count() > 1;
    }

    private static NativeReadingProperties.Outcome read(NativeProtocol protocol, List<StreamChunk> frames,
            boolean argumentEvents) {
        List<AgentEvent> events = new ArrayList<>();
        AnswerReader reader = protocol.reader(NativeReadingProperties.TOOLS, events::add, argumentEvents);
        frames.forEach(reader::accept);
        return new NativeReadingProperties.Outcome(events, reader.read());
    }

    /**
     * The same JSON value, numbers compared by value: the event keeps a number's digits exactly
     * (7.0 as a decimal), the native call's parse reads it as a double.
     */
    private static void assertSameJson(JsonNode actual, JsonNode expected, Object about) {
        java.util.Comparator<JsonNode> numbers = (a, b) -> a.isNumber() && b.isNumber()
                ? a.decimalValue().compareTo(b.decimalValue()) : (a.equals(b) ? 0 : 1);
        assertThat(actual.equals(numbers, expected)).as("%s is %s in %s", actual, expected, about).isTrue();
    }

    private static JsonNode readJson(String text) {
        try {
            return JSON.readTree(text);
        } catch (JacksonException e) {
            throw new AssertionError(text, e);
        }
    }

    @SafeVarargs
    private static <T> T pick(Random random, T... options) {
        return options[random.nextInt(options.length)];
    }
}
