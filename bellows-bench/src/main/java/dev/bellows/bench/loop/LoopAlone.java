package dev.bellows.bench.loop;

import dev.bellows.agent.ToolMode;
import java.util.Locale;

/**
 * One contestant of {@link LoopComparison} alone against the mock, for a profiler: JFR's
 * thread-park and virtual-thread counts per model request, say (BENCHMARKS.md, "Time per
 * iteration (session 4)"). Every answer is checked; nothing is measured here.
 *
 * <pre>
 * java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.LoopAlone
 *     floor|tags|native|tags-blocking|native-blocking|langchain4j [tasks, default 2000]
 * </pre>
 */
public final class LoopAlone {

    private LoopAlone() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            throw new IllegalArgumentException("usage: LoopAlone floor|tags|native|tags-blocking|native-blocking|langchain4j"
                    + " [tasks]");
        }
        int tasks = args.length == 2 ? Integer.parseInt(args[1]) : 2000;
        try (LeanMock mock = new LeanMock()) {
            Contestant contestant = switch (args[0]) {
                case "floor" -> new Floor(mock.baseUrl());
                case "tags" -> new BellowsAgent(mock.baseUrl(), ToolMode.TAGS, false);
                case "native" -> new BellowsAgent(mock.baseUrl(), ToolMode.NATIVE, false);
                case "tags-blocking" -> new BellowsAgent(mock.baseUrl(), ToolMode.TAGS, true);
                case "native-blocking" -> new BellowsAgent(mock.baseUrl(), ToolMode.NATIVE, true);
                case "langchain4j" -> new LangChain4jStreaming(mock.baseUrl());
                default -> throw new IllegalArgumentException("no contestant " + args[0]);
            };
            try (contestant) {
                for (int task = 0; task < tasks; task++) {
                    String answer = contestant.runTask();
                    if (!LeanMock.FINAL_ANSWER.equals(answer)) {
                        throw new IllegalStateException(contestant.name() + " answered " + answer);
                    }
                }
            }
            System.out.printf(Locale.ROOT, "%s: %d tasks, %d model requests%n", contestant.name(), tasks,
                    mock.requests.get());
        }
    }
}
