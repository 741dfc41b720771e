package dev.bellows.cli;

import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.TaskStatus;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.a2a.client.A2aClientException;
import dev.bellows.a2a.client.TaskEvents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Model.CommandSpec;

/**
 * One task of {@code bellows a2a send}: sent, its events written as they arrive (text: the
 * artifacts' text on standard output, states on standard error; jsonl: each event), and the exit
 * status its last state gives. Ctrl-C closes the stream and cancels the remote task.
 */
final class A2aSend {

    private final BellowsCommand root;
    private final CommandSpec spec;
    private final boolean jsonl;
    private final String resumeHint;
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final AtomicReference<TaskEvents> open = new AtomicReference<>();

    private String taskId;
    private String contextId;
    private TaskState state;
    private TaskStatus status;
    private String artifactOnLine;     // the artifact whose text the current stdout line holds (text mode)

    A2aSend(BellowsCommand root, CommandSpec spec, boolean jsonl, String resumeHint) {
        this.root = root;
        this.spec = spec;
        this.jsonl = jsonl;
        this.resumeHint = resumeHint;
    }

    int run(A2aClient.Builder builder, String text, String intoTask, String inContext) {
        Message message = Message.of(Role.USER, List.of(Part.text(text))).inTask(intoTask, inContext);
        taskId = intoTask;
        contextId = inContext;
        try (AutoCloseable interrupt = root.host.interrupts().onInterrupt(this::cancel);
             A2aClient client = builder.connect()) {
            try {
                if (client.streams()) {
                    try (TaskEvents events = client.stream(message)) {
                        open.set(events);
                        if (cancelled.get()) {
                            events.close();
                        }
                        for (StreamResponse event : events) {
                            show(event);
                        }
                    }
                    if (!cancelled.get() && (state == null || !state.terminal() && !state.interrupted()) && taskId != null) {
                        show(StreamResponse.of(client.getTask(taskId)));    // the stream ended early: where it stands
                    }
                } else {
                    SendMessageResponse response = client.send(message);
                    show(response.task() != null ? StreamResponse.of(response.task()) : StreamResponse.of(response.message()));
                }
            } catch (A2aClientException e) {
                if (!cancelled.get()) {
                    throw e;
                }
            }
            if (cancelled.get()) {
                return cancelRemote(client);
            }
            return finish();
        } catch (A2aClientException | A2aException e) {
            endLine();
            return A2aCommand.fail(root, spec, e.getMessage(), 1);
        } catch (UncheckedIOException e) {
            return A2aCommand.fail(root, spec, "cannot write to standard output: " + e.getCause().getMessage(), 1);
        } catch (Exception e) {      // closing the interrupt handler
            return A2aCommand.fail(root, spec, String.valueOf(e.getMessage()), 1);
        }
    }

    private void cancel() {
        cancelled.set(true);
        TaskEvents events = open.get();
        if (events != null) {
            events.close();
        }
    }

    private int cancelRemote(A2aClient client) {
        endLine();
        if (taskId != null) {
            try {
                Task task = client.cancelTask(taskId);
                note("cancelled: the remote task " + taskId + " is " + words(task.status().state()));
            } catch (A2aClientException | A2aException e) {
                note("cancelled here; the remote task " + taskId + " could not be cancelled: " + e.getMessage());
            }
        } else {
            note("cancelled");
        }
        return 130;
    }

    private void show(StreamResponse event) {
        if (jsonl) {
            try {
                out(A2aCommand.JSON.writeValueAsString(event) + "\n");
            } catch (tools.jackson.core.JacksonException e) {
                throw new IllegalStateException(e);
            }
        }
        if (event.task() != null) {
            Task task = event.task();
            boolean first = taskId == null || !taskId.equals(task.id());
            taskId = task.id();
            contextId = task.contextId();
            if (!jsonl && first) {
                note("task " + task.id() + (task.contextId() == null ? "" : " (context " + task.contextId() + ")"));
            }
            seeStatus(task.status());
            if (!jsonl && task.status() != null && task.status().state() != null && task.status().state().terminal()
                    && task.artifacts() != null && artifactOnLine == null) {
                task.artifacts().forEach(a -> out(Shown.text(text(a.parts())) + "\n"));   // an answer not streamed
            }
        } else if (event.message() != null) {
            state = TaskState.COMPLETED;
            if (!jsonl) {
                out(Shown.text(text(event.message().parts())) + "\n");
            }
        } else if (event.statusUpdate() != null) {
            taskId = event.statusUpdate().taskId();
            contextId = event.statusUpdate().contextId();
            seeStatus(event.statusUpdate().status());
        } else if (event.artifactUpdate() != null && !jsonl) {
            String id = String.valueOf(event.artifactUpdate().artifact().artifactId());
            boolean append = Boolean.TRUE.equals(event.artifactUpdate().append()) && id.equals(artifactOnLine);
            if (!append) {
                endLine();
            }
            out(Shown.text(text(event.artifactUpdate().artifact().parts())));
            artifactOnLine = id;
            if (Boolean.TRUE.equals(event.artifactUpdate().lastChunk())) {
                endLine();
                artifactOnLine = "";    // the answer was streamed (not null: see the task snapshot above)
            }
        }
    }

    private void seeStatus(TaskStatus next) {
        if (next == null || next.state() == null) {
            return;
        }
        status = next;
        if (next.state() != state && !jsonl) {
            String said = next.message() == null ? "" : text(next.message().parts());
            endLine();
            note("[" + words(next.state()) + "]" + (said.isEmpty() || next.state().interrupted() ? "" : " " + said));
        }
        state = next.state();
    }

    private int finish() {
        endLine();
        if (state == null) {
            return A2aCommand.fail(root, spec, "the agent ended the stream without a task or message", 1);
        }
        if (state == TaskState.COMPLETED) {
            return 0;
        }
        if (state.interrupted()) {
            String question = status == null || status.message() == null ? "" : text(status.message().parts());
            if (!jsonl) {
                out(Shown.text(question.isEmpty() ? "(the agent asks for input without a question)" : question) + "\n");
            }
            note("the agent waits for " + (state == TaskState.AUTH_REQUIRED ? "authorization" : "input") + "; answer with: "
                    + resumeHint.replace(" ANSWER", " ANSWER --task-id " + Shell.quote(taskId)
                    + (contextId == null || contextId.isEmpty() ? "" : " --context-id " + Shell.quote(contextId))));
            return 3;
        }
        String said = status == null || status.message() == null ? "" : text(status.message().parts());
        return A2aCommand.fail(root, spec, "the task " + words(state) + (said.isEmpty() ? "" : ": " + said), 1);
    }

    static String words(TaskState state) {
        return state.wireName().substring("TASK_STATE_".length()).toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    static String text(List<Part> parts) {
        return dev.bellows.a2a.client.A2aAgentTool.text(parts);
    }

    private void endLine() {
        if (artifactOnLine != null && !artifactOnLine.isEmpty()) {
            out("\n");
            artifactOnLine = "";
        }
    }

    private void note(String line) {
        root.stderr.println(Shown.text(line));
        root.stderr.flush();
    }

    private void out(String text) {
        try {
            root.stdout.write(text.getBytes(StandardCharsets.UTF_8));
            root.stdout.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
