package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.TextSection;
import dev.bellows.format.XmlFormat;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.Role;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Agents share what they are given without changing it, and one agent runs many sessions at once. */
class AgentConcurrencyTest {

    static final RetryPolicy NO_WAIT = new RetryPolicy(3, Duration.ZERO, Duration.ZERO);
    static final int THREADS = 8;

    record PathArguments(String path) {
    }

    static final Tool READ_FILE = TypedTool.of("read_file", "Reads a file", PathArguments.class,
            (context, arguments) -> ToolResult.of("contents of " + arguments.path()));

    @Test
    void building_agents_from_eight_threads_over_one_registry_and_one_format_changes_neither() throws Exception {
        ToolRegistry shared = new ToolRegistry().register(READ_FILE);
        MarkdownFormat markdown = new MarkdownFormat();
        markdown.registerSection(new TextSection("notes", "anything worth keeping"));
        XmlFormat xml = new XmlFormat();
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(MockTurn.content("x")));
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            for (int round = 0; round < 25; round++) {
                CyclicBarrier start = new CyclicBarrier(THREADS);
                List<Future<Agent>> built = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int kind = t % 3;
                    built.add(pool.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return switch (kind) {
                            case 0 -> DefaultAgent.builder().provider(provider).model("m").toolRegistry(shared).build();
                            case 1 -> ReActAgent.builder().provider(provider).model("m").toolRegistry(shared)
                                    .textFormat(markdown).build();
                            default -> ReActAgent.builder().provider(provider).model("m").toolRegistry(shared)
                                    .textFormat(xml).build();
                        };
                    }));
                }
                for (Future<Agent> agent : built) {
                    assertThat(agent.get(30, TimeUnit.SECONDS)).isNotNull();
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(shared.tools()).extracting(t -> t.tool().name()).containsExactly("read_file");
        assertThat(markdown.sections()).extracting(TextSection::name).containsExactly("notes");
        assertThat(xml.sections()).isEmpty();

        ReActAgent react = ReActAgent.builder().provider(provider).model("m").toolRegistry(shared)
                .textFormat(markdown).build();
        assertThat(react.textFormat()).isNotSameAs(markdown);
        assertThat(react.textFormat().sections()).extracting(TextSection::name)
                .containsExactly("notes", "thought", "action", "answer");
        assertThat(react.toolRegistry().tools()).extracting(t -> t.tool().name())
                .containsExactly("read_file", "ask_question", "converse");
    }

    @Test
    void one_agent_runs_eight_sessions_at_once_each_with_its_own_conversation() throws Exception {
        // Every run is inside its tool at the same time: the runs really overlap.
        CountDownLatch allInside = new CountDownLatch(THREADS);
        Tool meet = TypedTool.of("meet", "Waits for the others", PathArguments.class, (context, arguments) -> {
            allInside.countDown();
            if (!allInside.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the runs did not overlap");
            }
            return ToolResult.of("met at " + arguments.path());
        });
        Map<String, ScriptedProvider> byTask = new ConcurrentHashMap<>();
        for (int i = 0; i < THREADS; i++) {
            byTask.put("task " + i, new ScriptedProvider(MockScript.of(
                    MockTurn.content("<tool>{\"tool_name\": \"meet\", \"arguments\": {\"path\": \"p" + i + "\"}}</tool>"),
                    MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"done "
                            + i + "\"}}</tool>"))));
        }
        Provider routing = new Provider() {
            @Override
            public String name() {
                return "routing";
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                String task = request.messages().stream().filter(m -> m.role() == Role.USER).findFirst()
                        .orElseThrow().content();
                return byTask.get(task.lines().findFirst().orElseThrow()).stream(request);
            }
        };
        DefaultAgent agent = DefaultAgent.builder().provider(routing).model("m").retryPolicy(NO_WAIT)
                .toolRegistry(new ToolRegistry().register(meet)).build();

        List<Session> sessions = new ArrayList<>();
        List<AgentRun> runs = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Session session = new Session();
            sessions.add(session);
            runs.add(agent.run("task " + i, session));
        }
        for (int i = 0; i < THREADS; i++) {
            assertThat(runs.get(i).await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done " + i));
            List<Message> conversation = sessions.get(i).memory().messages();
            assertThat(conversation.getFirst()).isEqualTo(Message.user("task " + i));
            assertThat(conversation).hasSize(4);
            assertThat(conversation.get(2).content()).contains("met at p" + i);
        }
        // The agent's own session took no part.
        assertThat(agent.memory().messages()).isEmpty();
    }

    @Test
    void a_session_takes_one_run_at_a_time() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Tool hold = TypedTool.of("hold", "Waits", PathArguments.class, (context, arguments) -> {
            release.await();
            return ToolResult.of("released");
        });
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                MockTurn.content("<tool>{\"tool_name\": \"hold\", \"arguments\": {\"path\": \"x\"}}</tool>"),
                MockTurn.content("<tool>{\"tool_name\": \"converse\", \"arguments\": {\"message\": \"hi\"}}</tool>")));
        DefaultAgent agent = DefaultAgent.builder().provider(provider).model("m").retryPolicy(NO_WAIT)
                .toolRegistry(new ToolRegistry().register(hold)).build();
        Session session = new Session();
        AgentRun first = agent.run("first", session);
        assertThatThrownBy(() -> agent.run("second", session)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("still running");
        release.countDown();
        assertThat(first.await().reason()).isEqualTo(LoopEndReason.CONVERSE);
    }
}
