package dev.bellows.docs;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * What docs/events.md says of a run's events, checked on a real run over HTTP: the JSON of the
 * examples there, the {@code chunk} index counting the provider's chunks of each model answer
 * from 0, no {@code complete} event in a run, and every way of reading a run (iterator,
 * stream, publisher, listener) seeing the same events in the same order.
 */
class EventsGuideTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    /** The page's example: reasoning in a chunk of its own, then the answer in pieces of 20. */
    private static MockScript script() {
        return MockScript.builder()
                .turn(MockTurn.reasoning("Plan it.").withContent("Ok <tool>{\"tool_name\": \"update_plan\", \"arguments\": "
                        + "{\"steps\": [{\"description\": \"add\", \"status\": \"completed\"}]}}</tool>").chunkSize(20))
                .turn(MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"42\"}}</tool>")
                        .chunkSize(30))
                .build();
    }

    private record Observed(List<AgentEvent> iterated, List<AgentEvent> streamed, List<AgentEvent> published,
                            List<AgentEvent> heard) {
    }

    private static Observed observe() throws Exception {
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        try (MockLlmServer server = MockLlmServer.start(script());
             Provider provider = OpenAiProvider.builder().baseUrl(server.baseUrl().toString()).build()) {
            AgentRun run = DefaultAgent.builder().provider(provider).model("mock").toolRegistry(new ToolRegistry())
                    .listener(heard::add)
                    .listener(event -> {
                        throw new IllegalStateException("a broken listener");
                    })
                    .build()
                    .run("What is 40 + 2?");
            List<AgentEvent> iterated = new ArrayList<>();
            run.forEach(iterated::add);
            List<AgentEvent> streamed = run.events().toList();
            List<AgentEvent> published = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> done = new CompletableFuture<>();
            run.publisher().subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    subscription.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(AgentEvent item) {
                    published.add(item);
                }

                @Override
                public void onError(Throwable throwable) {
                    done.completeExceptionally(throwable);
                }

                @Override
                public void onComplete() {
                    done.complete(null);
                }
            });
            done.get();
            run.await();
            return new Observed(iterated, streamed, published, List.copyOf(heard));
        }
    }

    private static List<String> lines(List<AgentEvent> events) {
        return events.stream().map(event -> EventJson.toJson(event).toString()).toList();
    }

    @Test
    void everyWayOfReadingARunSeesTheSameEventsAndABrokenListenerStopsNothing() throws Exception {
        Observed observed = observe();

        assertThat(observed.streamed()).isEqualTo(observed.iterated());
        assertThat(observed.published()).isEqualTo(observed.iterated());
        assertThat(observed.heard()).isEqualTo(observed.iterated());
        assertThat(observed.iterated().getFirst()).isInstanceOf(LoopEvent.LoopStart.class);
        assertThat(observed.iterated().getLast()).isEqualTo(new LoopEvent.LoopEnd(
                dev.bellows.tool.LoopEndReason.TASK_COMPLETION, "42"));
    }

    @Test
    void theChunkIndexCountsEachAnswersProviderChunksFromZero() throws Exception {
        List<String> lines = lines(observe().iterated());

        assertThat(lines).containsSubsequence(
                "{\"type\":\"iteration_start\",\"iteration\":1}",
                "{\"type\":\"thinking_start\",\"chunk\":0,\"name\":\"thinking\",\"attributes\":{}}",
                "{\"type\":\"thinking_content\",\"chunk\":0,\"content\":\"Plan it.\"}",
                "{\"type\":\"thinking_end\",\"chunk\":1,\"content\":\"Plan it.\"}",
                "{\"type\":\"message_start\",\"chunk\":1}",
                "{\"type\":\"message_content\",\"chunk\":1,\"content\":\"Ok\"}",
                "{\"type\":\"message_end\",\"chunk\":1,\"content\":\"Ok\"}",
                "{\"type\":\"tool_call_start\",\"chunk\":1,\"name\":\"tool\",\"attributes\":{}}",
                "{\"type\":\"tool_call_name\",\"chunk\":2,\"tool_name\":\"update_plan\"}",
                "{\"type\":\"plan_update\",\"steps\":[{\"description\":\"add\",\"status\":\"completed\"}]}",
                "{\"type\":\"iteration_start\",\"iteration\":2}",
                "{\"type\":\"tool_call_start\",\"chunk\":0,\"name\":\"tool\",\"attributes\":{}}",
                "{\"type\":\"tool_call_name\",\"chunk\":1,\"tool_name\":\"task_completion\"}",
                "{\"type\":\"tool_result\",\"server_name\":\"local\",\"tool_name\":\"task_completion\","
                        + "\"arguments\":{\"result\":\"42\"},\"result\":\"42\",\"call_id\":\"call_2_1\"}",
                "{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"42\"}");
        assertThat(observe().iterated()).noneMatch(StreamEvent.Complete.class::isInstance);
    }

    @Test
    void theEventLogLeavesTheChunkOut() throws Exception {
        AgentEvent name = observe().iterated().stream().filter(StreamEvent.ToolCallName.class::isInstance)
                .findFirst().orElseThrow();

        assertThat(JSON.writeValueAsString(EventJson.toJson(name, false)))
                .isEqualTo("{\"type\":\"tool_call_name\",\"tool_name\":\"update_plan\"}");
    }
}
