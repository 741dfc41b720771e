package dev.bellows.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a run of a thread works on: the messages of a {@code RunAgentInput} the thread has not
 * taken yet (by id), as the agent's task. So a client that sends the whole conversation every
 * time and one that sends only the new message are both answered once per message.
 *
 * <p>The agent keeps its own side of the conversation (it stored every answer and every tool
 * result), so assistant, tool, reasoning and activity messages are the client's echo of it
 * (AG-UI clients keep each {@code TOOL_CALL_RESULT} as a tool message) and are never taken. New user
 * messages become the task, joined by blank lines; new system and developer messages and the
 * input's {@code context} entries go before and after it, marked as such.
 *
 * @param ids the ids of the messages taken, to remember once the run's turns are stored
 */
record AguiTurn(String task, List<String> ids) {

    static AguiTurn of(AguiInput input, Set<String> known) throws HttpError {
        List<String> ids = new ArrayList<>();
        List<String> user = new ArrayList<>();
        List<String> instructions = new ArrayList<>();
        for (AguiInput.InMessage message : input.messages()) {
            if (known.contains(message.id())) {
                continue;
            }
            switch (message.role()) {
                case "user" -> {
                    if (!message.text().isBlank()) {
                        user.add(message.text());
                    }
                    ids.add(message.id());
                }
                case "system", "developer" -> {
                    instructions.add(message.text());
                    ids.add(message.id());
                }
                default -> { }      // assistant, tool, reasoning, activity: the agent's side, kept already
            }
        }
        if (user.isEmpty()) {
            throw HttpError.badRequest("messages", "no new user message to answer: every user message here was taken by"
                    + " an earlier run of thread \"" + input.threadId() + "\" (messages are told apart by id);"
                    + " add the user's new message");
        }
        StringBuilder task = new StringBuilder();
        if (!instructions.isEmpty()) {
            task.append("Instructions from the application:\n").append(String.join("\n\n", instructions)).append("\n\n");
        }
        task.append(String.join("\n\n", user));
        if (!input.context().isEmpty()) {
            task.append("\n\nContext from the application:");
            for (String entry : input.context()) {
                task.append("\n- ").append(entry);
            }
        }
        return new AguiTurn(task.toString(), List.copyOf(ids));
    }
}
