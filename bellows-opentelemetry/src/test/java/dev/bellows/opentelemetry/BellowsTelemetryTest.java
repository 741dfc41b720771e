package dev.bellows.opentelemetry;

import dev.bellows.json.internal.Jackson;
import static dev.bellows.opentelemetry.Telemetry.attribute;
import static dev.bellows.opentelemetry.Telemetry.metric;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ModelInterceptor;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.memory.StoredSession;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.TokenUsage;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.stream.StreamChunk;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every span, attribute and metric of docs/observability.md, through a real SDK and its
 * in-memory exporters, with the real OpenAI-compatible provider against the testkit's mock
 * server on 127.0.0.1 (which records the requests with their headers).
 */
class BellowsTelemetryTest {

    record Pair(int a, int b) { }

    record Path1(String path) { }

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final String ADD_CALL = "<tool>{\"tool_name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}</tool>";
    private static final String DONE = "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"5\"}}</tool>";

    private final Telemetry telemetry = new Telemetry();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
        telemetry.close();
    }

    private MockLlmServer server(MockTurn... turns) throws Exception {
        MockLlmServer server = MockLlmServer.start(MockScript.of(turns));
        closing.add(server);
        return server;
    }

    private OpenAiProvider provider(MockLlmServer server) {
        OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).apiKey(ApiKey.of("sk-test-key-0123456789")).build();
        closing.add(provider);
        return provider;
    }

    private static ToolRegistry tools() {
        return new ToolRegistry()
                .register(TypedTool.of("add", "Adds two integers", Pair.class,
                        (context, args) -> ToolResult.of("sum=" + (args.a() + args.b()))))
                .register(TypedTool.of("read_file", "Reads a file", Path1.class, (context, args) -> {
                    throw new java.io.UncheckedIOException(new java.io.IOException("no such file: " + args.path()));
                }));
    }

    private DefaultAgent.Builder agent(MockLlmServer server, BellowsTelemetry tracing) {
        return tracing.instrument(DefaultAgent.builder()
                .provider(provider(server))
                .model("mock-model")
                .toolRegistry(tools())
                .retryPolicy(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofSeconds(1))));
    }

    private BellowsTelemetry tracing(boolean capture) {
        return BellowsTelemetry.builder(telemetry.sdk).captureMessageContent(capture).build();
    }

    @Test
    void aRunIsOneInvokeAgentSpanWithAChatSpanPerRequestAndAnExecuteToolSpanPerCall() throws Exception {
        MockLlmServer server = server(MockTurn.content(ADD_CALL), MockTurn.content(DONE));
        List<TokenUsage> reported = new CopyOnWriteArrayList<>();
        DefaultAgent agent = agent(server, tracing(false)).modelInterceptor(usageOf(reported)).build();

        AgentResult result = agent.run("What is 2 + 3?").await();

        assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        SpanData run = telemetry.only("invoke_agent bellows");
        assertThat(run.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(run.getParentSpanContext().isValid()).isFalse();
        assertThat(run.getAttributes().asMap()).containsEntry(GenAi.OPERATION_NAME, "invoke_agent")
                .containsEntry(GenAi.AGENT_NAME, "bellows")
                .containsEntry(GenAi.PROVIDER_NAME, "openai")
                .containsEntry(GenAi.REQUEST_MODEL, "mock-model")
                .containsEntry(GenAi.LOOP_END_REASON, "task_completion")
                .doesNotContainKey(GenAi.ERROR_TYPE)
                .doesNotContainKey(GenAi.CONVERSATION_ID);
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        List<SpanData> chats = telemetry.named("chat mock-model");
        assertThat(chats).hasSize(2);
        List<RecordedRequest> requests = server.requests();
        for (int i = 0; i < 2; i++) {
            SpanData chat = chats.get(i);
            assertThat(chat.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(chat.getParentSpanId()).isEqualTo(run.getSpanId());
            assertThat(chat.getTraceId()).isEqualTo(run.getTraceId());
            assertThat(chat.getAttributes().asMap()).containsEntry(GenAi.OPERATION_NAME, "chat")
                    .containsEntry(GenAi.PROVIDER_NAME, "openai")
                    .containsEntry(GenAi.REQUEST_MODEL, "mock-model")
                    .containsEntry(GenAi.SERVER_ADDRESS, "127.0.0.1")
                    .containsEntry(GenAi.SERVER_PORT, (long) server.port())
                    .containsEntry(GenAi.REQUEST_STREAM, true)
                    .containsEntry(GenAi.INPUT_TOKENS, reported.get(i).inputTokens())
                    .containsEntry(GenAi.OUTPUT_TOKENS, reported.get(i).outputTokens())
                    .containsEntry(GenAi.FINISH_REASONS, List.of("stop"))
                    .doesNotContainKey(GenAi.ERROR_TYPE)
                    .doesNotContainKey(GenAi.INPUT_MESSAGES)
                    .doesNotContainKey(GenAi.OUTPUT_MESSAGES);
            assertThat(reported.get(i).inputTokens()).isPositive();
            assertThat(attribute(chat, GenAi.TIME_TO_FIRST_CHUNK)).isBetween(0.0, (chat.getEndEpochNanos() - chat.getStartEpochNanos()) / 1e9);
            // The request the model received carries this attempt's span as its parent.
            assertThat(requests.get(i).header("traceparent"))
                    .isEqualTo(traceparent(chat));
        }

        SpanData tool = telemetry.only("execute_tool add");
        assertThat(tool.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(tool.getParentSpanId()).isEqualTo(run.getSpanId());
        assertThat(tool.getAttributes().asMap()).containsEntry(GenAi.OPERATION_NAME, "execute_tool")
                .containsEntry(GenAi.TOOL_NAME, "add")
                .containsEntry(GenAi.TOOL_CALL_ID, "call_1_1")
                .containsEntry(GenAi.TOOL_SERVER, "local")
                .containsEntry(GenAi.TOOL_TYPE, "function")
                .containsEntry(GenAi.TOOL_DESCRIPTION, "Adds two integers")
                .doesNotContainKey(GenAi.ERROR_TYPE)
                .doesNotContainKey(GenAi.TOOL_CALL_ARGUMENTS)
                .doesNotContainKey(GenAi.TOOL_CALL_RESULT);
        // execute_tool sits between the two model calls
        assertThat(tool.getStartEpochNanos()).isGreaterThanOrEqualTo(chats.get(0).getEndEpochNanos());
        assertThat(chats.get(1).getStartEpochNanos()).isGreaterThanOrEqualTo(tool.getEndEpochNanos());
        // The task_completion call ends the run: a built-in, traced as a tool too.
        assertThat(telemetry.only("execute_tool task_completion").getParentSpanId()).isEqualTo(run.getSpanId());

        List<MetricData> metrics = telemetry.collect();
        MetricData tokens = metric(metrics, "gen_ai.client.token.usage").orElseThrow();
        assertThat(tokens.getUnit()).isEqualTo("{token}");
        List<HistogramPointData> tokenPoints = List.copyOf(tokens.getHistogramData().getPoints());
        assertThat(tokenPoints).hasSize(2);
        for (HistogramPointData point : tokenPoints) {
            assertThat(point.getBoundaries()).containsExactlyElementsOf(
                    Instruments.TOKEN_BUCKETS.stream().map(Long::doubleValue).toList());
            assertThat(point.getCount()).isEqualTo(2);
            assertThat(point.getAttributes().asMap()).containsEntry(GenAi.OPERATION_NAME, "chat")
                    .containsEntry(GenAi.PROVIDER_NAME, "openai")
                    .containsEntry(GenAi.REQUEST_MODEL, "mock-model")
                    .containsEntry(GenAi.SERVER_ADDRESS, "127.0.0.1")
                    .containsEntry(GenAi.SERVER_PORT, (long) server.port())
                    .doesNotContainKey(GenAi.ERROR_TYPE);
            String type = point.getAttributes().get(GenAi.TOKEN_TYPE);
            long expected = reported.stream().mapToLong(u -> type.equals("input") ? u.inputTokens() : u.outputTokens()).sum();
            assertThat(type).isIn("input", "output");
            assertThat(point.getSum()).isEqualTo((double) expected);
        }
        MetricData duration = metric(metrics, "gen_ai.client.operation.duration").orElseThrow();
        assertThat(duration.getUnit()).isEqualTo("s");
        HistogramPointData durations = duration.getHistogramData().getPoints().iterator().next();
        assertThat(duration.getHistogramData().getPoints()).hasSize(1);
        assertThat(durations.getCount()).isEqualTo(2);
        assertThat(durations.getBoundaries()).containsExactlyElementsOf(Instruments.DURATION_BUCKETS);
        assertThat(durations.getAttributes().asMap()).containsEntry(GenAi.OPERATION_NAME, "chat")
                .containsEntry(GenAi.PROVIDER_NAME, "openai").doesNotContainKey(GenAi.ERROR_TYPE);
        assertThat(sum(metrics, "bellows.loop.iterations", Attributes.of(GenAi.AGENT_NAME, "bellows",
                GenAi.PROVIDER_NAME, "openai", GenAi.REQUEST_MODEL, "mock-model"))).isEqualTo(2);
        assertThat(metric(metrics, "bellows.loop.iterations").orElseThrow().getUnit()).isEqualTo("{iteration}");
        assertThat(metric(metrics, "bellows.model.retries")).isEmpty();
        assertThat(metric(metrics, "bellows.tool.errors")).isEmpty();
    }

    @Test
    void aRetriedRequestIsOneChatSpanPerAttemptTheFailedOneWithItsErrorType() throws Exception {
        MockLlmServer server = server(MockTurn.status(429).errorMessage("slow down"), MockTurn.content(DONE));
        DefaultAgent agent = agent(server, tracing(false)).build();

        assertThat(agent.run("What is 2 + 3?").await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);

        SpanData run = telemetry.only("invoke_agent bellows");
        List<SpanData> chats = telemetry.named("chat mock-model");
        assertThat(chats).hasSize(2);
        SpanData failed = chats.get(0);
        assertThat(failed.getParentSpanId()).isEqualTo(run.getSpanId());
        assertThat(attribute(failed, GenAi.ERROR_TYPE)).isEqualTo("429");
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failed.getStatus().getDescription()).contains("slow down");
        assertThat(attribute(failed, GenAi.INPUT_TOKENS)).isNull();
        SpanData retried = chats.get(1);
        assertThat(retried.getParentSpanId()).isEqualTo(run.getSpanId());
        assertThat(attribute(retried, GenAi.ERROR_TYPE)).isNull();
        assertThat(retried.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(attribute(retried, GenAi.OUTPUT_TOKENS)).isPositive();
        // Each attempt's request carried its own span.
        assertThat(server.requests()).extracting(r -> r.header("traceparent")).containsExactly(
                traceparent(failed), traceparent(retried));
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        List<MetricData> metrics = telemetry.collect();
        assertThat(sum(metrics, "bellows.model.retries", Attributes.of(GenAi.PROVIDER_NAME, "openai",
                GenAi.REQUEST_MODEL, "mock-model", GenAi.ERROR_TYPE, "429"))).isEqualTo(1);
        assertThat(sum(metrics, "bellows.loop.iterations", Attributes.of(GenAi.AGENT_NAME, "bellows",
                GenAi.PROVIDER_NAME, "openai", GenAi.REQUEST_MODEL, "mock-model"))).isEqualTo(1);
        List<HistogramPointData> durations = List.copyOf(metric(metrics, "gen_ai.client.operation.duration")
                .orElseThrow().getHistogramData().getPoints());
        assertThat(durations).extracting(p -> p.getAttributes().get(GenAi.ERROR_TYPE)).containsExactlyInAnyOrder("429", null);
    }

    @Test
    void aRunThatFailsEndsItsSpanWithTheErrorAndItsModelCallWithTheStatus() throws Exception {
        MockLlmServer server = server(MockTurn.status(401).errorMessage("invalid key"));
        DefaultAgent agent = agent(server, tracing(false)).build();

        AgentResult result = agent.run("What is 2 + 3?").await();

        assertThat(result.reason()).isEqualTo(LoopEndReason.ERROR);
        SpanData run = telemetry.only("invoke_agent bellows");
        assertThat(run.getAttributes().asMap()).containsEntry(GenAi.ERROR_TYPE, "error")
                .containsEntry(GenAi.LOOP_END_REASON, "error");
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(run.getStatus().getDescription()).contains("invalid key").doesNotContain("sk-test-key-0123456789");
        SpanData chat = telemetry.only("chat mock-model");
        assertThat(attribute(chat, GenAi.ERROR_TYPE)).isEqualTo("401");
        assertThat(chat.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(chat.getParentSpanId()).isEqualTo(run.getSpanId());
    }

    @Test
    void aFailedToolCallIsAnExecuteToolSpanWithItsErrorTypeAndCounts() throws Exception {
        MockLlmServer server = server(
                MockTurn.content("<tool>{\"tool_name\": \"read_file\", \"arguments\": {\"path\": \"/nowhere\"}}</tool>"),
                MockTurn.content(DONE));
        DefaultAgent agent = agent(server, tracing(false)).build();

        assertThat(agent.run("Read /nowhere").await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);

        SpanData tool = telemetry.only("execute_tool read_file");
        assertThat(tool.getParentSpanId()).isEqualTo(telemetry.only("invoke_agent bellows").getSpanId());
        assertThat(attribute(tool, GenAi.ERROR_TYPE)).isEqualTo("java.io.UncheckedIOException");
        assertThat(tool.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        // What the tool said is content: not on the span unless content is captured.
        assertThat(tool.getStatus().getDescription()).doesNotContain("/nowhere");
        assertThat(sum(telemetry.collect(), "bellows.tool.errors", Attributes.of(GenAi.TOOL_NAME, "read_file",
                GenAi.TOOL_SERVER, "local", GenAi.ERROR_TYPE, "java.io.UncheckedIOException"))).isEqualTo(1);
    }

    @Test
    void parallelToolCallsAreChildrenOfTheRunSpanOnTheirOwnThreads() throws Exception {
        MockLlmServer server = server(
                MockTurn.toolCalls(MockToolCall.of("add", "{\"a\": 1, \"b\": 2}"), MockToolCall.of("add", "{\"a\": 3, \"b\": 4}")),
                MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"3 and 7\"}")));
        ToolRegistry parallel = new ToolRegistry().register(TypedTool.builder("add", Pair.class)
                .description("Adds two integers").parallelSafe(true)
                .handler((context, args) -> ToolResult.of("sum=" + (args.a() + args.b()))).build());
        DefaultAgent agent = tracing(false).instrument(DefaultAgent.builder().provider(provider(server)).model("mock-model")
                .toolMode(ToolMode.NATIVE).toolRegistry(parallel)).build();

        assertThat(agent.run("Add twice").await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);

        SpanData run = telemetry.only("invoke_agent bellows");
        List<SpanData> adds = telemetry.named("execute_tool add");
        assertThat(adds).hasSize(2).allSatisfy(span -> assertThat(span.getParentSpanId()).isEqualTo(run.getSpanId()));
        assertThat(adds).extracting(span -> attribute(span, GenAi.TOOL_CALL_ID))
                .containsExactlyInAnyOrderElementsOf(server.script().turns().get(0).toolCalls().stream().map(MockToolCall::id).toList());
        assertThat(telemetry.named("chat mock-model")).extracting(span -> attribute(span, GenAi.FINISH_REASONS))
                .containsExactly(List.of("tool_calls"), List.of("tool_calls"));
    }

    @Test
    void aSubAgentsRunIsAChildOfItsParentsExecuteToolSpanToAnyDepth() throws Exception {
        BellowsTelemetry tracing = tracing(false);
        // each sub-agent runs on an executor's thread: the tool's thread has the call's span as
        // its current context, the sub-agent's thread has none, so only the run's parent call
        // can place it
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
        closing.add(threads::shutdown);
        DefaultAgent checker = scripted(tracing, "checker", threads, new ToolRegistry(), MockTurn.content(DONE));
        DefaultAgent researcher = scripted(tracing, "researcher", threads,
                new ToolRegistry().register(dev.bellows.agent.AgentTool.of("checker", "Checks", checker)),
                MockTurn.content("<tool>{\"tool_name\": \"checker\", \"arguments\": {\"task\": \"check 5\"}}</tool>"),
                MockTurn.content(DONE));
        DefaultAgent lead = scripted(tracing, "lead", threads,
                new ToolRegistry().register(dev.bellows.agent.AgentTool.of("researcher", "Finds", researcher)),
                MockTurn.content("<tool>{\"tool_name\": \"researcher\", \"arguments\": {\"task\": \"add 2 and 3\"}}</tool>"),
                MockTurn.content(DONE));

        assertThat(lead.run("What is 2 + 3?").await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);

        SpanData root = telemetry.only("invoke_agent lead");
        SpanData callsResearcher = telemetry.only("execute_tool researcher");
        SpanData researcherRun = telemetry.only("invoke_agent researcher");
        SpanData callsChecker = telemetry.only("execute_tool checker");
        SpanData checkerRun = telemetry.only("invoke_agent checker");
        assertThat(root.getParentSpanContext().isValid()).isFalse();
        assertThat(callsResearcher.getParentSpanId()).isEqualTo(root.getSpanId());
        assertThat(researcherRun.getParentSpanId()).isEqualTo(callsResearcher.getSpanId());
        assertThat(callsChecker.getParentSpanId()).isEqualTo(researcherRun.getSpanId());
        assertThat(checkerRun.getParentSpanId()).isEqualTo(callsChecker.getSpanId());
        assertThat(List.of(callsResearcher, researcherRun, callsChecker, checkerRun))
                .allSatisfy(span -> assertThat(span.getTraceId()).isEqualTo(root.getTraceId()));
        assertThat(attribute(researcherRun, GenAi.AGENT_NAME)).isEqualTo("researcher");
        // the sub-agent's own calls stay under its own run
        assertThat(telemetry.named("chat mock-model")).filteredOn(span -> span.getParentSpanId().equals(researcherRun.getSpanId()))
                .hasSize(2);
    }

    /** An instrumented agent named {@code name} on a scripted model, its runs going on on {@code executor}. */
    private static DefaultAgent scripted(BellowsTelemetry tracing, String name, java.util.concurrent.Executor executor,
                                         ToolRegistry tools, MockTurn... turns) {
        return tracing.instrument(DefaultAgent.builder().name(name).executor(executor)
                .provider(new dev.bellows.testkit.ScriptedProvider(MockScript.of(turns)))
                .model("mock-model").toolRegistry(tools)).build();
    }

    @Test
    void aStoredSessionIsTheConversationId(@TempDir Path directory) throws Exception {
        MockLlmServer server = server(MockTurn.content(DONE));
        DefaultAgent agent = agent(server, tracing(false)).build();
        try (SqliteSessionStore store = SqliteSessionStore.open(directory); StoredSession stored = store.open("refactor-parser")) {
            agent.run("What is 2 + 3?", Session.of(stored)).await();
        }
        assertThat(attribute(telemetry.only("invoke_agent bellows"), GenAi.CONVERSATION_ID)).isEqualTo("refactor-parser");
    }

    @Test
    void theAgentsNameNamesItsSpan() throws Exception {
        MockLlmServer server = server(MockTurn.content(DONE));
        agent(server, tracing(false)).name("math-tutor").build().run("What is 2 + 3?").await();
        assertThat(attribute(telemetry.only("invoke_agent math-tutor"), GenAi.AGENT_NAME)).isEqualTo("math-tutor");
    }

    @Test
    void contentIsCapturedOnlyWhenAskedAndNeverASecret() throws Exception {
        String secret = "hunter2-very-secret-token";
        MockLlmServer server = server(
                MockTurn.content("<think>the token is " + secret + "</think>" + ADD_CALL),
                MockTurn.content(DONE));
        BellowsTelemetry capturing = BellowsTelemetry.builder(telemetry.sdk).captureMessageContent(true)
                .redactor(text -> text.replace(secret, "[REDACTED]")).build();
        DefaultAgent agent = agent(server, capturing).build();

        String registered = "registered-db-password-4711";
        dev.bellows.secret.Secrets.register(registered);   // as a database URL's password is
        agent.run("What is 2 + 3? My password is " + secret + ", the database's " + registered).await();

        SpanData run = telemetry.only("invoke_agent bellows");
        JsonNode task = JSON.readTree(attribute(run, GenAi.INPUT_MESSAGES));
        assertThat(task.get(0).get("role").asString()).isEqualTo("user");
        assertThat(task.get(0).get("parts").get(0).get("content").asString()).isEqualTo("What is 2 + 3? My password is [REDACTED], the database's [REDACTED]");
        JsonNode answer = JSON.readTree(attribute(run, GenAi.OUTPUT_MESSAGES));
        assertThat(answer.get(0).get("parts").get(0).get("content").asString()).isEqualTo("5");

        SpanData first = telemetry.named("chat mock-model").get(0);
        JsonNode input = JSON.readTree(attribute(first, GenAi.INPUT_MESSAGES));
        assertThat(input.get(0).get("role").asString()).isEqualTo("system");
        assertThat(input.get(input.size() - 1).get("role").asString()).isEqualTo("user");
        JsonNode output = JSON.readTree(attribute(first, GenAi.OUTPUT_MESSAGES));
        assertThat(output.get(0).get("role").asString()).isEqualTo("assistant");
        assertThat(output.get(0).get("finish_reason").asString()).isEqualTo("stop");
        // The thinking is a reasoning part, redacted; the call written in the text a tool call.
        assertThat(output.get(0).get("parts")).hasSize(2);
        assertThat(output.get(0).get("parts").get(0).get("type").asString()).isEqualTo("reasoning");
        assertThat(output.get(0).get("parts").get(0).get("content").asString()).isEqualTo("the token is [REDACTED]");
        assertThat(output.get(0).get("parts").get(1).get("type").asString()).isEqualTo("tool_call");

        SpanData tool = telemetry.only("execute_tool add");
        assertThat(JSON.readTree(attribute(tool, GenAi.TOOL_CALL_ARGUMENTS))).isEqualTo(JSON.readTree("{\"a\":2,\"b\":3}"));
        assertThat(attribute(tool, GenAi.TOOL_CALL_RESULT)).isEqualTo("sum=5");

        for (SpanData span : telemetry.spans()) {
            assertThat(span.getAttributes().toString()).doesNotContain(secret).doesNotContain(registered);
            assertThat(span.getStatus().getDescription()).doesNotContain(secret);
        }
        // The key never reaches a span, nor does a header value.
        assertThat(telemetry.spans().toString()).doesNotContain("sk-test-key-0123456789");
    }

    /**
     * In tag mode the model writes its thinking and its calls in the text: the output message
     * has them as the GenAI conventions' parts, as the loop read them (a {@code reasoning} part,
     * the text outside the tags, a {@code tool_call} part), not as one text with the tags in it.
     */
    @Test
    void thinkingAndCallsWrittenInTagsAreRecordedAsReasoningAndToolCallParts() throws Exception {
        MockLlmServer server = server(
                MockTurn.content("<think>two numbers: add them</think>Let me add.\n" + ADD_CALL),
                MockTurn.content(DONE));
        DefaultAgent agent = agent(server, tracing(true)).toolMode(ToolMode.TAGS).build();

        agent.run("What is 2 + 3?").await();

        SpanData first = telemetry.named("chat mock-model").get(0);
        JsonNode parts = JSON.readTree(attribute(first, GenAi.OUTPUT_MESSAGES)).get(0).get("parts");
        assertThat(parts).hasSize(3);
        assertThat(parts.get(0).get("type").asString()).isEqualTo("reasoning");
        assertThat(parts.get(0).get("content").asString()).isEqualTo("two numbers: add them");
        assertThat(parts.get(1).get("type").asString()).isEqualTo("text");
        assertThat(parts.get(1).get("content").asString().strip()).isEqualTo("Let me add.");
        assertThat(parts.get(2).get("type").asString()).isEqualTo("tool_call");
        assertThat(parts.get(2).get("name").asString()).isEqualTo("add");
        assertThat(parts.get(2).get("arguments")).isEqualTo(JSON.readTree("{\"a\":2,\"b\":3}"));
        assertThat(attribute(first, GenAi.OUTPUT_MESSAGES)).doesNotContain("<think>").doesNotContain("<tool>");

        // The next request sends that answer back as the model wrote it: its input reads it the same way.
        SpanData second = telemetry.named("chat mock-model").get(1);
        JsonNode input = JSON.readTree(attribute(second, GenAi.INPUT_MESSAGES));
        JsonNode answered = null;
        for (JsonNode message : input) {
            if (message.get("role").asString().equals("assistant")) {
                answered = message.get("parts");
            }
        }
        assertThat(answered).isNotNull();
        assertThat(answered.get(0).get("type").asString()).isEqualTo("reasoning");
        assertThat(answered.get(0).get("content").asString()).isEqualTo("two numbers: add them");
        assertThat(answered.get(1).get("type").asString()).isEqualTo("text");
        assertThat(answered.get(2).get("type").asString()).isEqualTo("tool_call");
        assertThat(answered.get(2).get("name").asString()).isEqualTo("add");
        assertThat(answered.toString()).doesNotContain("<think>").doesNotContain("<tool>");
    }

    @Test
    void contentCaptureFollowsTheEnvironmentVariableAndTheSystemProperty() {
        java.util.Properties none = new java.util.Properties();
        assertThat(BellowsTelemetry.captureRequested(java.util.Map.of(), none)).isFalse();
        assertThat(BellowsTelemetry.captureRequested(java.util.Map.of(BellowsTelemetry.CAPTURE_CONTENT_ENV, "true"), none)).isTrue();
        assertThat(BellowsTelemetry.captureRequested(java.util.Map.of(BellowsTelemetry.CAPTURE_CONTENT_ENV, "TRUE "), none)).isTrue();
        assertThat(BellowsTelemetry.captureRequested(java.util.Map.of(BellowsTelemetry.CAPTURE_CONTENT_ENV, "1"), none)).isFalse();
        java.util.Properties off = new java.util.Properties();
        off.setProperty(BellowsTelemetry.CAPTURE_CONTENT_PROPERTY, "false");
        assertThat(BellowsTelemetry.captureRequested(java.util.Map.of(BellowsTelemetry.CAPTURE_CONTENT_ENV, "true"), off)).isFalse();
    }

    @Test
    void anHttpMcpCallCarriesItsExecuteToolSpanAsTraceparent() throws Exception {
        BellowsTelemetry tracing = tracing(false);
        MockLlmServer server = server(
                MockTurn.content("<tool>{\"server_name\": \"remote\", \"tool_name\": \"whoami\", \"arguments\": {}}</tool>"),
                MockTurn.content(DONE));
        try (dev.bellows.testkit.OAuthMcpServer mcp = dev.bellows.testkit.OAuthMcpServer.open();
             dev.bellows.mcp.McpServers servers = dev.bellows.mcp.McpServers.start(
                     List.of(dev.bellows.mcp.McpServerConfig.http("remote", mcp.mcpUrl()).build()), java.util.Map.of(),
                     dev.bellows.mcp.McpListener.NONE,
                     dev.bellows.mcp.McpClientOptions.DEFAULTS.withRequestHeaders(tracing::traceHeaders))) {
            DefaultAgent agent = tracing.instrument(DefaultAgent.builder().provider(provider(server)).model("mock-model")
                    .toolRegistry(servers.addTo(new ToolRegistry()))).build();

            assertThat(agent.run("Who am I?").await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);

            SpanData tool = telemetry.only("execute_tool whoami");
            assertThat(attribute(tool, GenAi.TOOL_SERVER)).isEqualTo("remote");
            List<dev.bellows.testkit.OAuthMcpServer.Request> calls = mcp.requests("/mcp").stream()
                    .filter(request -> request.body().contains("\"tools/call\"")).toList();
            assertThat(calls).hasSize(1);
            assertThat(calls.getFirst().traceparent()).isEqualTo(traceparent(tool));
            // Starting the server happened outside any span: no trace context then.
            assertThat(mcp.requests("/mcp").stream().filter(request -> request.body().contains("\"initialize\"")))
                    .allSatisfy(request -> assertThat(request.traceparent()).isNull());
        }
    }

    @Test
    void anAgentWithoutTelemetryRegistersNothingAndSendsNoTraceparent() throws Exception {
        MockLlmServer server = server(MockTurn.content(DONE));
        DefaultAgent.builder().provider(provider(server)).model("mock-model").toolRegistry(tools()).build()
                .run("What is 2 + 3?").await();
        assertThat(server.requests().getFirst().header("traceparent")).isNull();
        assertThat(telemetry.spans()).isEmpty();
    }

    /** An interceptor inside the telemetry's that keeps the usage each attempt's stream reported. */
    private static ModelInterceptor usageOf(List<TokenUsage> reported) {
        return chain -> {
            ChatStream stream = chain.proceed(chain.request());
            return new ChatStream() {
                @Override
                public StreamChunk next() throws ProviderException {
                    StreamChunk chunk = stream.next();
                    if (chunk == null) {
                        stream.usage().ifPresent(reported::add);
                    }
                    return chunk;
                }

                @Override
                public Optional<String> finishReason() {
                    return stream.finishReason();
                }

                @Override
                public Optional<TokenUsage> usage() {
                    return stream.usage();
                }

                @Override
                public void cancel() {
                    stream.cancel();
                }

                @Override
                public void close() {
                    stream.close();
                }
            };
        };
    }

    /** The W3C traceparent of a span: version 00, its trace, its id, its flags (sampled, and the SDK's random bit). */
    static String traceparent(SpanData span) {
        assertThat(span.getSpanContext().isSampled()).isTrue();
        return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-" + span.getSpanContext().getTraceFlags().asHex();
    }

    private static long sum(List<MetricData> metrics, String name, Attributes attributes) {
        MetricData metric = metric(metrics, name).orElseThrow(() -> new AssertionError("no metric " + name));
        return metric.getLongSumData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes))
                .mapToLong(LongPointData::getValue).sum();
    }
}
