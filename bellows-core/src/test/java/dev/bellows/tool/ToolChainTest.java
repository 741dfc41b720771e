package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.Observation;
import dev.bellows.format.OutputFormat;
import dev.bellows.format.TextFormat;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.ToolCallOutcome.Cancelled;
import dev.bellows.tool.ToolCallOutcome.Failed;
import dev.bellows.tool.ToolCallOutcome.Succeeded;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ToolChainTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    record Weather(String city, int celsius, List<String> sky, Optional<String> warning) {
    }

    private static final Weather PARIS = new Weather("Paris", 21, List.of("sunny", "dry"), Optional.empty());

    private final ToolRegistry registry = new ToolRegistry()
            .register(TestTool.of("weather", (context, args) -> ToolResult.of(PARIS)))
            .register(TestTool.of("echo", (context, args) -> ToolResult.of(args.path("text").asString())));

    private static ToolCall call(String tool) {
        return call(tool, "{}");
    }

    private static ToolCall call(String tool, String arguments) {
        return call(ToolCall.LOCAL_SERVER, tool, arguments);
    }

    private static ToolCall call(String server, String tool, String arguments) {
        try {
            return new ToolCall(server, tool, (ObjectNode) JSON.readTree(arguments));
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** The observation as the tag protocol writes it. */
    private static String xml(ToolChainResult result) {
        return Observation.format(new XmlFormat(), result.outcomes());
    }

    private ToolChainResult run(DecodedToolCall... calls) {
        return new ToolChain(registry).execute(List.of(calls));
    }

    @Nested
    class Output {

        @Test
        void aRecordIsCompactJsonByDefault() {
            ToolChainResult result = run(call("weather"));
            assertThat(xml(result)).isEqualTo("""
                    <observation>
                    <weather>
                    {"city":"Paris","celsius":21,"sky":["sunny","dry"],"warning":null}
                    </weather>
                    </observation>""");
            assertThat(result.outcomes()).singleElement().isInstanceOfSatisfying(Succeeded.class,
                    s -> assertThat(s.result().output()).isEqualTo(PARIS));
        }

        @Test
        void aRecordIsYamlWhenAsked() {
            ToolChainResult result = new ToolChain(registry, OutputFormat.YAML)
                    .execute(List.of(call("weather")));
            assertThat(xml(result)).isEqualTo("""
                    <observation>
                    <weather>
                    city: Paris
                    celsius: 21
                    sky:
                    - sunny
                    - dry
                    warning: null
                    </weather>
                    </observation>""");
        }

        @Test
        void yamlKeepsStringsThatLookLikeOtherTypesQuoted() {
            registry.register(TestTool.of("map", (c, a) -> ToolResult.of(Map.of("id", "007", "ok", "true"))));
            ToolChainResult result = new ToolChain(registry, OutputFormat.YAML)
                    .execute(List.of(call("map")));
            assertThat(xml(result)).contains("id: \"007\"").contains("ok: \"true\"");
        }

        @Test
        void aStringIsWrittenAsIs() {
            ToolChainResult result = run(call("echo", "{\"text\": \"line 1\\n  {\\\"not\\\": \\\"json\\\"}\"}"));
            assertThat(xml(result)).isEqualTo("<observation>\n<echo>\nline 1\n  {\"not\": \"json\"}\n</echo>\n</observation>");
        }

        @Test
        void theObservationFollowsTheTextFormat() {
            ToolChainResult result = new ToolChain(registry)
                    .execute(List.of(call("echo", "{\"text\": \"hi\"}"), call("weather")));
            assertThat(Observation.format(new MarkdownFormat(), result.outcomes())).isEqualTo("""
                    # observation

                    ## echo
                    hi

                    ## weather
                    {"city":"Paris","celsius":21,"sky":["sunny","dry"],"warning":null}""");
        }

        @Test
        void noOutputSaysSo() {
            registry.register(TestTool.of("quiet", (c, a) -> ToolResult.of(null)));
            registry.register(TestTool.of("silent", (c, a) -> null));
            ToolChainResult result = run(call("quiet"), call("silent"));
            assertThat(result.outcomes()).extracting(ToolCallOutcome::text).containsExactly("(no output)", "(no output)");
        }

        @Test
        void mediaPassesThroughAndTheTextMentionsIt() {
            Media png = Media.image(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, "image/png");
            Media pdf = new Media("application/pdf", new byte[] {'%', 'P'});
            registry.register(TestTool.of("screenshot", (c, a) -> ToolResult.of(Map.of("width", 1920), png)));
            registry.register(TestTool.of("camera", (c, a) -> ToolResult.of(null, png, png)));
            registry.register(TestTool.of("export", (c, a) -> ToolResult.of("done", pdf)));

            ToolChainResult result = run(call("screenshot"), call("camera"), call("export"));

            assertThat(result.media()).containsExactly(png, png, png, pdf);
            assertThat(xml(result)).isEqualTo("""
                    <observation>
                    <screenshot>
                    {"width":1920}
                    (1 image attached: image/png, 4 bytes)
                    </screenshot>
                    <camera>
                    (2 images attached: image/png, 4 bytes; image/png, 4 bytes)
                    </camera>
                    <export>
                    done
                    (1 file attached: application/pdf, 2 bytes)
                    </export>
                    </observation>""");
        }

        @Test
        void noCallsGiveEmptyText() {
            ToolChainResult result = run();
            assertThat(xml(result)).isEmpty();
            assertThat(result.media()).isEmpty();
            assertThat(result.outcomes()).isEmpty();
        }

        @Test
        void toolsOfOtherServersAreNamedWithTheirServer() {
            registry.register("github", TestTool.of("search", (c, a) -> ToolResult.of("3 issues")));
            assertThat(xml(run(call("github", "search", "{}")))).contains("<github.search>\n3 issues\n</github.search>");
        }
    }

    @Nested
    class Errors {

        @Test
        void unknownToolIsNamedAndTheToolsThatExistAreListed() {
            ToolChainResult result = run(call("wether"), call("weather"));

            assertThat(result.outcomes().get(0)).isInstanceOfSatisfying(Failed.class, f -> {
                assertThat(f.cause()).isInstanceOf(ToolException.class);
                assertThat(f.error()).contains("wether").contains("weather").contains("echo");
            });
            assertThat(result.outcomes().get(1)).isInstanceOf(Succeeded.class);
            assertThat(xml(result)).startsWith("<observation>\n<wether>\n<error>\n")
                    .contains("</error>\n</wether>\n<weather>\n{\"city\"");
            assertThat(result.hasFailures()).isTrue();
        }

        @Test
        void anUnknownNameThatIsNoSectionNameIsMadeOne() {
            ToolChainResult result = run(call("do it!"));
            assertThat(xml(result)).startsWith("<observation>\n<do_it_>\n<error>\n").contains("do it!");
        }

        @Test
        void anUndecodableCallIsAnErrorSection() {
            ToolCallError error = new ToolCallError("{\"tool_name\": ", "the tool call is not complete JSON");
            ToolChainResult result = run(error, call("echo", "{\"text\": \"still runs\"}"));

            assertThat(xml(result)).isEqualTo("""
                    <observation>
                    <error>
                    the tool call is not complete JSON
                    </error>
                    <echo>
                    still runs
                    </echo>
                    </observation>""");
            assertThat(result.failed()).singleElement()
                    .satisfies(f -> assertThat(f.call()).isSameAs(error))
                    .satisfies(f -> assertThat(f.cause()).isNull());
        }

        @Test
        void argumentsAreCheckedForToolsThatDoNotCheckThemselves() {
            AtomicBoolean called = new AtomicBoolean();
            String schema = """
                    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}""";
            registry.register(TestTool.of("read_file", (c, a) -> {
                called.set(true);
                return ToolResult.of("contents");
            }).withSchema(schema));

            ToolChainResult result = run(call("read_file", "{\"path\": {\"name\": \"a.txt\"}}"));

            assertThat(called).isFalse();
            assertThat(result.outcomes()).singleElement().isInstanceOfSatisfying(Failed.class, f -> {
                assertThat(f.cause()).isInstanceOf(InvalidArgumentsException.class);
                assertThat(f.error()).isEqualTo(f.cause().getMessage()).contains("path");
            });
            assertThat(xml(result)).startsWith("<observation>\n<read_file>\n<error>\n");
        }

        @Test
        void toolsThatCheckTheirOwnArgumentsGetThemAsGiven() {
            registry.register(TestTool.of("own", (c, a) -> ToolResult.of(a.toString()))
                    .withSchema("{\"type\": \"object\", \"required\": [\"x\"]}").validating());
            assertThat(run(call("own", "{\"y\": 1}")).outcomes()).singleElement()
                    .isInstanceOfSatisfying(Succeeded.class, s -> assertThat(s.text()).isEqualTo("{\"y\":1}"));
        }

        @Test
        void aToolExceptionMessageGoesToTheModelAsIs() {
            registry.register(TestTool.of("open", (c, a) -> {
                throw new ToolException("file 'a.txt' does not exist; list the folder first");
            }));
            ToolChainResult result = run(call("open"));
            assertThat(xml(result)).isEqualTo("""
                    <observation>
                    <open>
                    <error>
                    file 'a.txt' does not exist; list the folder first
                    </error>
                    </open>
                    </observation>""");
        }

        @Test
        void otherExceptionsGiveTypeAndMessageOnly() {
            IllegalStateException failure = new IllegalStateException("disk on fire",
                    new RuntimeException("api key sk-secret rejected"));
            registry.register(TestTool.of("boom", (c, a) -> {
                throw failure;
            }));
            registry.register(TestTool.of("npe", (c, a) -> {
                throw new NullPointerException();
            }));

            ToolChainResult result = run(call("boom"), call("npe"));

            assertThat(result.failed()).extracting(Failed::error)
                    .containsExactly("tool boom failed: IllegalStateException: disk on fire",
                            "tool npe failed: NullPointerException");
            assertThat(result.failed().get(0).cause()).isSameAs(failure);
            assertThat(xml(result)).doesNotContain("sk-secret").doesNotContain("\tat ");
        }
    }

    @Nested
    class ForTheAgentLoop {

        @Test
        void loopBreakingToolAndItsOutput() {
            registry.register(TestTool.of("task_completion", (c, a) -> ToolResult.of(a.path("result").asString()))
                    .breakingTheLoop());
            ToolChainResult result = run(call("echo", "{\"text\": \"x\"}"), call("task_completion", "{\"result\": \"done\"}"));

            assertThat(result.endingRun()).hasValue(new ToolEffect.EndRun(LoopEndReason.TASK_COMPLETION, "done"));
            assertThat(result.succeeded().get(1).result().output()).isEqualTo("done");
            assertThat(result.succeeded().get(1).text()).isEqualTo("done");
            assertThat(result.succeeded().get(0).effect()).isEqualTo(ToolEffect.NONE);
            assertThat(result.succeeded()).hasSize(2);
            assertThat(result.hasFailures()).isFalse();
        }

        @Test
        void aFailedLoopBreakingCallDoesNotBreakTheLoop() {
            registry.register(TestTool.of("converse", (c, a) -> {
                throw new ToolException("message is required");
            }).breakingTheLoop());
            assertThat(run(call("converse")).endingRun()).isEmpty();
        }
    }

    @Nested
    class Concurrency {

        @Test
        void parallelSafeToolsRunAtTheSameTimeAndKeepCallOrder() {
            // Each call waits until the other has started: run one after the other, the first
            // would wait out its bound and fail; run together, both pass the barrier. The bound
            // is generous: on a loaded machine the second thread may start late, never too late.
            CyclicBarrier bothStarted = new CyclicBarrier(2);
            Thread caller = Thread.currentThread();
            List<Thread> threads = new CopyOnWriteArrayList<>();
            for (String name : List.of("left", "right")) {
                registry.register(TestTool.of(name, (c, a) -> {
                    threads.add(Thread.currentThread());
                    bothStarted.await(60, TimeUnit.SECONDS);
                    return ToolResult.of(name + " " + a.path("n").asInt());
                }).parallel());
            }

            ToolChainResult result = run(call("right", "{\"n\": 1}"), call("left", "{\"n\": 2}"),
                    call("right", "{\"n\": 3}"), call("left", "{\"n\": 4}"));

            assertThat(result.outcomes()).allMatch(Succeeded.class::isInstance)
                    .extracting(ToolCallOutcome::text).containsExactly("right 1", "left 2", "right 3", "left 4");
            assertThat(threads).hasSize(4).allMatch(Thread::isVirtual).doesNotContain(caller);
        }

        @Test
        void oneToolThatIsNotParallelSafeKeepsTheBatchOnTheCallingThread() {
            List<Thread> threads = new CopyOnWriteArrayList<>();
            registry.register(TestTool.of("safe", (c, a) -> {
                threads.add(Thread.currentThread());
                return ToolResult.of("s");
            }).parallel());
            registry.register(TestTool.of("unsafe", (c, a) -> {
                threads.add(Thread.currentThread());
                return ToolResult.of("u");
            }));

            ToolChainResult result = run(call("safe"), call("unsafe"), call("safe"));

            assertThat(result.outcomes()).extracting(ToolCallOutcome::text).containsExactly("s", "u", "s");
            assertThat(threads).containsOnly(Thread.currentThread());
        }

        @Test
        void callsNotStartedWhenCancelledAreReportedCancelled() {
            AtomicBoolean cancelled = new AtomicBoolean();
            AtomicBoolean toolSawIt = new AtomicBoolean();
            AtomicBoolean laterCalled = new AtomicBoolean();
            registry.register(TestTool.of("stop", (context, a) -> {
                cancelled.set(true);
                toolSawIt.set(context.isCancelled());
                return ToolResult.of("stopping");
            }));
            registry.register(TestTool.of("later", (c, a) -> {
                laterCalled.set(true);
                return ToolResult.of("ran");
            }));

            ToolChainResult result = new ToolChain(registry)
                    .execute(List.of(call("stop"), call("later"), call("later")), cancelled::get);

            assertThat(toolSawIt).isTrue();
            assertThat(laterCalled).isFalse();
            assertThat(result.outcomes().get(0)).isInstanceOf(Succeeded.class);
            assertThat(result.outcomes().subList(1, 3)).allMatch(Cancelled.class::isInstance);
            assertThat(xml(result)).contains("<later>\n(not run: cancelled before it started)\n</later>");
            assertThat(result.hasFailures()).isFalse();
        }

        @Test
        void parallelCallsNotStartedWhenCancelledAreReportedCancelled() {
            AtomicBoolean called = new AtomicBoolean();
            registry.register(TestTool.of("p", (c, a) -> {
                called.set(true);
                return ToolResult.of("ran");
            }).parallel());

            ToolChainResult result = new ToolChain(registry)
                    .execute(List.of(call("p"), call("p")), () -> true);

            assertThat(called).isFalse();
            assertThat(result.outcomes()).hasSize(2).allMatch(Cancelled.class::isInstance);
        }

        @Test
        void anInterruptedCallerStartsNoMoreCalls() {
            AtomicBoolean called = new AtomicBoolean();
            registry.register(TestTool.of("t", (c, a) -> {
                called.set(true);
                return ToolResult.of("ran");
            }));
            Thread.currentThread().interrupt();
            try {
                ToolChainResult result = run(call("t"));
                assertThat(result.outcomes()).singleElement().isInstanceOf(Cancelled.class);
                assertThat(called).isFalse();
            } finally {
                assertThat(Thread.interrupted()).as("the interrupt is left for the caller").isTrue();
            }
        }
    }
}
