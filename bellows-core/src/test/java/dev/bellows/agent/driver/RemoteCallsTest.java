package dev.bellows.agent.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.RunContext;
import dev.bellows.agent.ToolInterceptor;
import dev.bellows.format.OutputFormat;
import dev.bellows.json.internal.Jackson;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A driver of its own that sends a run's tool calls to another process (docs/machine.md,
 * "Driving it"; a durable run's worker is one) runs each there with
 * {@link ToolInterceptor#proceed}: found and checked as the agent does, through that process's
 * interceptors, rendered as the model reads it. Written against the public API alone, in a
 * package of its own, as a user's driver is.
 */
class RemoteCallsTest {

    record Terms(int a, int b) {
    }

    record Sum(int sum) {
    }

    final List<String> happened = new CopyOnWriteArrayList<>();

    final Tool add = TypedTool.of("add", "Adds two numbers", Terms.class, (context, terms) -> {
        happened.add("add " + terms.a() + " " + terms.b());
        return ToolResult.of(new Sum(terms.a() + terms.b()));
    });

    final ToolRegistry workerTools = new ToolRegistry().register(add);

    final RunContext run = RunContext.of("planner", "s-1", "add things", 3, () -> false);

    static JsonNode json(String text) {
        return Jackson.JSON.readTree(text);
    }

    static ToolCall add(String arguments) {
        return new ToolCall("local", "add", json(arguments));
    }

    @Test
    void theWorkersInterceptorsSeeTheCallCheckedAndItsOutputIsWrittenAsTheModelReadsIt() {
        List<String> seen = new CopyOnWriteArrayList<>();
        ToolInterceptor audit = chain -> {
            seen.add(chain.callId() + " " + chain.run().task() + " #" + chain.run().iteration() + " "
                    + chain.call().arguments());
            return chain.proceed();
        };

        ToolCallOutcome outcome = ToolInterceptor.proceed(List.of(audit), run, "call_3_1", add("{\"a\": \"1\", \"b\": 2}"),
                workerTools, OutputFormat.YAML, () -> false);

        assertThat(outcome).isInstanceOfSatisfying(ToolCallOutcome.Succeeded.class,
                succeeded -> assertThat(succeeded.text().strip()).isEqualTo("sum: 3"));
        assertThat(seen).as("the arguments coerced before any interceptor sees them")
                .containsExactly("call_3_1 add things #3 {\"a\":1,\"b\":2}");
        assertThat(happened).containsExactly("add 1 2");
    }

    @Test
    void aCallThatCannotRunIsTheErrorTheModelReadsAndNoInterceptorSeesIt() {
        List<String> seen = new CopyOnWriteArrayList<>();
        ToolInterceptor audit = chain -> {
            seen.add(chain.callId());
            return chain.proceed();
        };

        ToolCallOutcome unknown = ToolInterceptor.proceed(List.of(audit), run, "call_3_1",
                new ToolCall("local", "ad", json("{\"a\": 1, \"b\": 2}")), workerTools, OutputFormat.JSON, () -> false);
        ToolCallOutcome invalid = ToolInterceptor.proceed(List.of(audit), run, "call_3_2", add("{\"a\": 1}"),
                workerTools, OutputFormat.JSON, () -> false);

        assertThat(unknown).isInstanceOfSatisfying(ToolCallOutcome.Failed.class,
                failed -> assertThat(failed.error()).contains("unknown tool \"ad\"", "did you mean \"add\""));
        assertThat(invalid).isInstanceOfSatisfying(ToolCallOutcome.Failed.class,
                failed -> assertThat(failed.error()).contains("invalid arguments for add", "\"b\""));
        assertThat(seen).isEmpty();
        assertThat(happened).isEmpty();
    }

    @Test
    void argumentsAnInterceptorPassesOnAreCheckedAndADeferredCallIsTheDriversToCarryOut() {
        ToolInterceptor breaking = chain -> chain.proceed(json("{\"a\": \"one\", \"b\": 2}"));
        ToolInterceptor deferring = ToolInterceptor.Chain::defer;

        assertThat(ToolInterceptor.proceed(List.of(breaking), run, "call_3_1", add("{\"a\": 1, \"b\": 2}"), workerTools,
                OutputFormat.JSON, () -> false)).isInstanceOfSatisfying(ToolCallOutcome.Failed.class,
                failed -> assertThat(failed.error()).contains("\"a\""));
        assertThat(ToolInterceptor.proceed(List.of(deferring), run, "call_3_2", add("{\"a\": 1, \"b\": 2}"), workerTools,
                OutputFormat.JSON, () -> false)).isInstanceOf(ToolCallOutcome.Deferred.class);
        assertThat(happened).isEmpty();
    }

    @Test
    void anInterceptorThatFailsEndsTheCallWithAnExceptionNamingIt() {
        class Broken implements ToolInterceptor {
            @Override
            public ToolCallOutcome intercept(Chain chain) {
                throw new IllegalStateException("boom");
            }
        }

        assertThatThrownBy(() -> ToolInterceptor.proceed(List.of(new Broken()), run, "call_3_1",
                add("{\"a\": 1, \"b\": 2}"), workerTools, OutputFormat.JSON, () -> false))
                .isInstanceOf(RuntimeException.class)
                .hasMessageContaining("tool interceptor " + Broken.class.getName() + " failed", "boom");
        assertThat(happened).isEmpty();
    }

    @Test
    void aCancelledRunsCallDoesNotStart() {
        assertThat(ToolInterceptor.proceed(List.of(), run, "call_3_1", add("{\"a\": 1, \"b\": 2}"), workerTools,
                OutputFormat.JSON, () -> true)).isInstanceOf(ToolCallOutcome.Cancelled.class);
        assertThat(happened).isEmpty();
    }
}
