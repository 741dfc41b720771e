package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.client.A2aAgentTool;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.temporal.DurableAgent;
import dev.bellows.temporal.DurableWorker;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * a2a.md "Durable tasks": with {@code bellows serve --a2a --temporal} a call that waits for
 * approval makes the task {@code input-required} while its durable run waits in its workflow,
 * and the task's next message decides it (the workflow's {@code decide} update), on a server
 * restarted in between too; CancelTask and a new task of the context give it up (its workflow
 * canceled). Cheap by construction: Temporal's test server, the worker
 * ({@link DurableWorker}, a scripted model) and the server ({@code serve} in process) all in
 * this JVM; DurableRunsTest has the real worker processes.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DurableA2aApprovalsTest {

    @TempDir
    Path dir;

    record Target(String path) {
    }

    private static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    private static Message message(String taskId, Part part) {
        return Message.of(Role.USER, List.of(part)).inTask(taskId, "ctx");
    }

    private ServeInProcess serve(TemporalTestServer temporal, String queue) throws Exception {
        return ServeInProcess.start(dir, Map.of(), "serve", "--a2a", "--port", "0", "--temporal", temporal.address(),
                "--task-queue", queue, "--base-url", "http://127.0.0.1:9/v1", "--model", "mock",
                "--data-dir", dir.resolve("data").toString());
    }

    /** The ids of the calls the waiting task's status message names. */
    @SuppressWarnings("unchecked")
    private static List<String> waitingIds(Task task) {
        Map<String, Object> data = (Map<String, Object>) task.status().message().parts().getFirst().data();
        return ((List<Map<String, Object>>) data.get("waiting")).stream().map(c -> (String) c.get("id")).toList();
    }

    @Test
    void aDurableTaskWaitingForApprovalIsDecidedByTheTasksNextMessage() throws Exception {
        List<String> writes = new CopyOnWriteArrayList<>();
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("write_file", "Writes a file.", Target.class,
                (context, args) -> {
                    writes.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                }));
        ScriptedProvider model = new ScriptedProvider(MockScript.of(
                MockTurn.content(call("write_file", "{\"path\": \"a.txt\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Wrote a.txt.\"}")),
                MockTurn.content(call("write_file", "{\"path\": \"b.txt\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Left b.txt alone.\"}")),
                MockTurn.content(call("write_file", "{\"path\": \"c.txt\"}")),
                MockTurn.content(call("write_file", "{\"path\": \"d.txt\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Nothing written.\"}"))));
        String queue = "q-" + UUID.randomUUID();
        try (TemporalTestServer temporal = TemporalTestServer.start()) {
            WorkflowClient client = DurableAgent.client(WorkflowServiceStubs.newServiceStubs(
                    WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build()), "default");
            try (DurableWorker worker = DurableWorker.builder(client).taskQueue(queue).provider(model).tools(tools)
                    .loop(b -> b.model("mock").requireApproval("local/write_file")).build()) {
                worker.start();
                Task waiting;
                try (ServeInProcess server = serve(temporal, queue);
                     A2aClient a2a = A2aClient.builder(server.url()).connect()) {
                    waiting = a2a.send(message(null, Part.text("Write a.txt"))).task();
                    assertThat(waiting.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
                    assertThat(waiting.status().message().parts().getLast().text()).contains("write_file", "approve");
                    assertThat(waitingIds(waiting)).hasSize(1);
                    assertThat(writes).isEmpty();
                }

                // another server of the store (this one restarted) finds the waiting run and decides it
                try (ServeInProcess server = serve(temporal, queue);
                     A2aClient a2a = A2aClient.builder(server.url()).connect()) {
                    assertThatThrownBy(() -> a2a.send(message(waiting.id(), Part.text("maybe later"))))
                            .isInstanceOfSatisfying(A2aException.class,
                                    e -> assertThat(e.error()).isEqualTo(A2aError.INVALID_PARAMS));
                    assertThat(a2a.getTask(waiting.id()).status().state()).isEqualTo(TaskState.INPUT_REQUIRED);

                    Task approved = a2a.send(message(waiting.id(), Part.text("approve"))).task();
                    assertThat(approved.status().state()).isEqualTo(TaskState.COMPLETED);
                    assertThat(A2aAgentTool.text(approved.artifacts().getLast().parts())).isEqualTo("Wrote a.txt.");
                    assertThat(writes).containsExactly("a.txt");

                    // the context's next task continues the durable session; a data part denies with a reason
                    Task second = a2a.send(message(null, Part.text("Write b.txt"))).task();
                    assertThat(second.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
                    String callId = waitingIds(second).getFirst();
                    Task denied = a2a.send(message(second.id(), Part.data(Map.of("deny",
                            List.of(Map.of("id", callId, "reason", "b.txt is read-only")))))).task();
                    assertThat(denied.status().state()).isEqualTo(TaskState.COMPLETED);
                    assertThat(A2aAgentTool.text(denied.artifacts().getLast().parts())).isEqualTo("Left b.txt alone.");
                    assertThat(model.requests().get(3).messages().toString()).contains("b.txt is read-only");

                    // CancelTask gives a waiting run up, and so does a new task of the context: the calls are never made
                    Task third = a2a.send(message(null, Part.text("Write c.txt"))).task();
                    assertThat(third.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
                    assertThat(a2a.cancelTask(third.id()).status().state()).isEqualTo(TaskState.CANCELED);
                    Task fourth = a2a.send(message(null, Part.text("Write d.txt"))).task();
                    assertThat(fourth.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
                    Task moved = a2a.send(message(null, Part.text("Never mind, write nothing."))).task();
                    assertThat(moved.status().state()).isEqualTo(TaskState.COMPLETED);
                    assertThat(A2aAgentTool.text(moved.artifacts().getLast().parts())).isEqualTo("Nothing written.");
                    assertThat(writes).containsExactly("a.txt");
                }
            } finally {
                client.getWorkflowServiceStubs().shutdown();
            }
        }
    }
}
