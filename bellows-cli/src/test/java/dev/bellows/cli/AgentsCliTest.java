package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.call;
import static dev.bellows.cli.RunCommandTest.complete;
import static dev.bellows.cli.RunCommandTest.server;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockLlmServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The config file's agents through the CLI (cli.md, "Agents that work together"): checked at
 * start, listed by {@code bellows agents}, run with {@code --agent NAME}, a sub-agent's events
 * marked in JSON lines and indented in text, against the mock model over real HTTP.
 */
class AgentsCliTest {

    /** lead may call researcher; researcher has a model and instructions of its own. */
    private static final String TEAM = """
            {"agents": {
              "lead": {"instructions": "You plan and delegate.", "agents": ["researcher"]},
              "researcher": {"instructions": "You find facts.", "model": "m2"},
              "writer": {"instructions": "You write.", "kind": "react"},
              "pipeline": {"sequence": ["researcher", "writer"]},
              "both": {"parallel": ["researcher", "writer"], "then": "lead"}
            }}""";

    @TempDir
    Path dir;

    private Cli.Run bellows(String config, String... args) {
        try {
            Files.writeString(dir.resolve("bellows.json"), config);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false,
                new Host(Map.of(), dir, Interrupts.NONE, false)).execute(args);
        return new Cli.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Cli.Run run(MockLlmServer server, String config, String... args) {
        List<String> all = new ArrayList<>(List.of("run", "--base-url", server.baseUrl().toString(), "--model", "mock"));
        all.addAll(List.of(args));
        return bellows(config, all.toArray(String[]::new));
    }

    private static final String DELEGATE = call("researcher", "{\"task\": \"find the boiling point\"}");

    @Test
    void aSubAgentRunsWithItsOwnInstructionsModelAndMemoryAndItsAnswerIsTheCallsResult() {
        try (MockLlmServer server = server(DELEGATE, complete("100 C at sea level"), complete("water boils at 100 C"))) {
            Cli.Run run = run(server, TEAM, "--agent", "lead", "--output", "jsonl", "When does water boil?");

            assertThat(run.status()).as(run.err()).isZero();
            List<JsonNode> events = run.outJson();
            assertThat(events).allSatisfy(event -> assertThat(event.has("agent")).as(event.toString()).isTrue());
            List<JsonNode> nested = events.stream().filter(e -> e.get("agent").asString().equals("researcher")).toList();
            List<JsonNode> own = events.stream().filter(e -> e.get("agent").asString().equals("lead")).toList();
            assertThat(nested).isNotEmpty().allSatisfy(event ->
                    assertThat(event.get("parent_call_id").asString()).isEqualTo(nested.getFirst().get("parent_call_id").asString()));
            assertThat(nested.getFirst().get("parent_call_id").asString()).isNotBlank();
            assertThat(own).noneMatch(event -> event.has("parent_call_id"));
            assertThat(nested.getFirst().get("type").asString()).isEqualTo("loop_start");
            assertThat(nested.getFirst().get("task").asString()).isEqualTo("find the boiling point");
            // the sub-agent's events come while the lead's call runs: before that call's result
            int result = indexOf(events, e -> e.get("type").asString().equals("tool_result")
                    && e.get("tool_name").asString().equals("researcher") && e.get("agent").asString().equals("lead"));
            assertThat(events.get(result).get("result").asString()).isEqualTo("100 C at sea level");
            // the parent's call, its result and the sub-agent's events name the same call id
            String callId = nested.getFirst().get("parent_call_id").asString();
            assertThat(events.get(result).get("call_id").asString()).isEqualTo(callId);
            int called = indexOf(events, e -> e.get("type").asString().equals("tool_call_end")
                    && e.get("agent").asString().equals("lead"));
            assertThat(events.get(called).get("call_id").asString()).isEqualTo(callId);
            assertThat(events).filteredOn(e -> e.get("type").asString().matches("tool_call_end|tool_result(_error)?"))
                    .allSatisfy(e -> assertThat(e.has("call_id")).as(e.toString()).isTrue());
            assertThat(events.indexOf(nested.getLast())).isLessThan(result);
            assertThat(events.getLast().get("result").asString()).isEqualTo("water boils at 100 C");
            assertThat(events.getLast().get("agent").asString()).isEqualTo("lead");

            JsonNode lead = server.requests().get(0).body();
            JsonNode researcher = server.requests().get(1).body();
            assertThat(lead.get("model").asString()).isEqualTo("mock");
            assertThat(lead.get("messages").toString()).contains("You plan and delegate.")
                    .contains("Gives a task to the agent researcher");
            assertThat(researcher.get("model").asString()).isEqualTo("m2");
            assertThat(researcher.get("messages").toString()).contains("You find facts.")
                    .contains("find the boiling point").doesNotContain("When does water boil?");
        }
    }

    @Test
    void textOutputIndentsTheSubAgentsWorkUnderALineNamingIt() {
        try (MockLlmServer server = server(DELEGATE, complete("100 C"), complete("it boils at 100 C"))) {
            Cli.Run run = run(server, TEAM, "--agent", "lead", "When does water boil?");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("it boils at 100 C\n");
            assertThat(run.err()).contains("\n  agent researcher: find the boiling point")
                    .contains("\n    \u2713 task_completion: 100 C")
                    .contains("\n    researcher task_completion: 100 C");
        }
    }

    /**
     * A stored session keeps its sub-agents' work, each event with its agent and the parent call
     * of every level, and {@code sessions show} prints it under the step whose call ran it, nested
     * as the run's own text output showed it.
     */
    @Test
    void sessionsShowPrintsTheSubAgentTreeUnderTheStepThatRanIt() {
        String tree = """
                {"agents": {
                  "lead": {"instructions": "You plan and delegate.", "agents": ["researcher"]},
                  "researcher": {"instructions": "You find facts.", "agents": ["checker"]},
                  "checker": {"instructions": "You check."}
                }}""";
        String data = dir.resolve("data").toString();
        try (MockLlmServer server = server(DELEGATE, call("checker", "{\"task\": \"check 100 C\"}"), complete("checked"),
                complete("100 C"), complete("it boils at 100 C"))) {
            Cli.Run run = run(server, tree, "--agent", "lead", "--session", "team", "--data-dir", data,
                    "When does water boil?");
            assertThat(run.status()).as(run.err()).isZero();

            Cli.Run show = bellows(tree, "sessions", "show", "team", "--data-dir", data);
            assertThat(show.status()).as(show.err()).isZero();
            String[] printed = show.out().split("\n");
            List<String> nested = new ArrayList<>();
            boolean under = false;
            for (String line : printed) {
                if (line.equals("[sub-agents]")) {
                    under = true;
                } else if (under && line.startsWith("  ")) {
                    nested.add(line);
                } else {
                    under = false;
                }
            }
            assertThat(nested).containsExactly(
                    "  agent researcher: find the boiling point",
                    "    researcher calls checker\u2026",
                    "    agent checker: check 100 C",
                    "      checker calls task_completion\u2026",
                    "      \u2713 task_completion: checked",
                    "      checker task_completion: checked",
                    "    \u2713 checker: checked",
                    "    researcher calls task_completion\u2026",
                    "    \u2713 task_completion: 100 C",
                    "    researcher task_completion: 100 C");
            // as the run's own text output showed it
            assertThat(run.err().lines().filter(line -> line.startsWith("    ") || line.startsWith("  agent ")).toList())
                    .containsExactlyElementsOf(nested);
            // under the step whose call ran it: the first, the lead's call of researcher
            assertThat(show.out().indexOf("[sub-agents]")).isGreaterThan(show.out().indexOf("--- request 1, step 1 ---"))
                    .isLessThan(show.out().indexOf("--- request 1, step 2 ---"));
            assertThat(show.out()).doesNotContain(dev.bellows.agent.internal.SubAgentTrail.KEY_PREFIX);
        }
    }

    @Test
    void maxDepthBoundsAgentsThatCallEachOther() {
        String loop = """
                {"agents": {"a": {"instructions": "A.", "agents": ["b"]}, "b": {"instructions": "B.", "agents": ["a"]}}}""";
        try (MockLlmServer server = server(call("b", "{\"task\": \"t\"}"), complete("from b"), complete("from a"))) {
            Cli.Run run = run(server, loop, "--agent", "a", "--max-depth", "1", "go");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(server.requests().get(0).body().get("messages").toString()).contains("the agent b");
            assertThat(server.requests().get(1).body().get("messages").toString()).contains("B.")
                    .doesNotContain("the agent a");
        }
    }

    @Test
    void aSequenceNamedInAnAgentsAgentsRunsItsAgentsInTurnEachGivenTheLastAnswer() {
        String config = """
                {"agents": {
                  "lead": {"agents": ["pipeline"]},
                  "researcher": {"instructions": "You find facts."},
                  "writer": {"instructions": "You write."},
                  "pipeline": {"sequence": ["researcher", "writer"]}
                }}""";
        try (MockLlmServer server = server(call("pipeline", "{\"task\": \"tea\"}"), complete("tea is a leaf"),
                complete("A poem: tea is a leaf"), complete("here is the poem"))) {
            Cli.Run run = run(server, config, "--agent", "lead", "--output", "jsonl", "a poem about tea");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.outJson()).filteredOn(e -> e.get("type").asString().equals("loop_start"))
                    .extracting(e -> e.get("agent").asString()).containsExactly("lead", "researcher", "writer");
            assertThat(server.requests().get(2).body().get("messages").toString()).contains("You write.")
                    .contains("tea is a leaf");
            assertThat(run.outJson()).anySatisfy(e -> {
                assertThat(e.get("type").asString()).isEqualTo("tool_result");
                assertThat(e.get("agent").asString()).isEqualTo("lead");
                assertThat(e.get("result").asString()).isEqualTo("A poem: tea is a leaf");
            });
        }
    }

    @Test
    void aWorkflowNamedByAgentRunsByItselfItsAgentsEventsMarked() {
        String config = """
                {"agents": {
                  "researcher": {"instructions": "You find facts."},
                  "writer": {"instructions": "You write."},
                  "pipeline": {"sequence": ["researcher", "writer"]}
                }}""";
        try (MockLlmServer server = server(complete("tea is a leaf"), complete("A poem: tea is a leaf"))) {
            Cli.Run run = run(server, config, "--agent", "pipeline", "--output", "jsonl", "a poem about tea");

            assertThat(run.status()).as(run.err()).isZero();
            List<JsonNode> events = run.outJson();
            assertThat(events).filteredOn(e -> e.get("type").asString().equals("loop_start"))
                    .extracting(e -> e.get("agent").asString()).containsExactly("pipeline", "researcher", "writer");
            assertThat(events.getLast().get("type").asString()).isEqualTo("loop_end");
            assertThat(events.getLast().get("agent").asString()).isEqualTo("pipeline");
            assertThat(events.getLast().get("result").asString()).isEqualTo("A poem: tea is a leaf");
            assertThat(server.requests().get(1).body().get("messages").toString()).contains("You write.")
                    .contains("tea is a leaf");

            Cli.Run text = run(server, config, "--agent", "pipeline", "--session", "s", "x");
            assertThat(text.status()).isEqualTo(2);
            assertThat(text.err()).contains("--session: pipeline is a workflow, which keeps no conversation");
        }
    }

    /** lead may hand the conversation to writer, who may hand it back. */
    private static final String DESK = """
            {"agents": {
              "lead": {"instructions": "You plan and delegate.", "handoffs": ["writer"]},
              "writer": {"instructions": "You write the final text.", "handoffs": ["lead"]}
            }}""";

    @Test
    void aHandoffGivesTheRestOfTheRunToTheOtherAgentWhoseEventsAndAnswerFollow() {
        try (MockLlmServer server = server(call("transfer_to_writer", "{}"), complete("a poem"))) {
            Cli.Run run = run(server, DESK, "--agent", "lead", "--output", "jsonl", "write me a poem");

            assertThat(run.status()).as(run.err()).isZero();
            List<JsonNode> events = run.outJson();
            int handoff = indexOf(events, e -> e.get("type").asString().equals("handoff"));
            assertThat(events.get(handoff).get("from").asString()).isEqualTo("lead");
            assertThat(events.get(handoff).get("to").asString()).isEqualTo("writer");
            assertThat(events.subList(0, handoff + 1)).allSatisfy(e -> assertThat(e.get("agent").asString()).isEqualTo("lead"));
            assertThat(events.subList(handoff + 1, events.size()))
                    .allSatisfy(e -> assertThat(e.get("agent").asString()).isEqualTo("writer"));
            assertThat(events.getLast().get("result").asString()).isEqualTo("a poem");
            assertThat(events).filteredOn(e -> e.get("type").asString().equals("loop_start")).hasSize(1);
            assertThat(server.requests().get(0).body().get("messages").toString()).contains("transfer_to_writer");
            assertThat(server.requests().get(1).body().get("messages").toString()).contains("You write the final text.")
                    .contains("write me a poem");
        }
    }

    @Test
    void theSessionRemembersWhoHasTheConversationForTheNextRun() {
        try (MockLlmServer server = server(call("transfer_to_writer", "{}"), complete("a poem"), complete("a second poem"))) {
            List<String> common = List.of("--data-dir", dir.resolve("data").toString(), "--session", "desk",
                    "--agent", "lead", "--output", "jsonl");
            List<String> first = new ArrayList<>(common);
            first.add("write me a poem");
            assertThat(run(server, DESK, first.toArray(String[]::new)).status()).isZero();
            List<String> second = new ArrayList<>(common);
            second.add("another one");

            Cli.Run next = run(server, DESK, second.toArray(String[]::new));

            assertThat(next.status()).as(next.err()).isZero();
            assertThat(next.outJson()).allSatisfy(e -> assertThat(e.get("agent").asString()).isEqualTo("writer"));
            assertThat(next.outJson().getLast().get("result").asString()).isEqualTo("a second poem");
            assertThat(server.requests()).hasSize(3);
            assertThat(server.requests().get(2).body().get("messages").toString()).contains("You write the final text.")
                    .contains("write me a poem").contains("another one");
        }
    }

    @Test
    void textOutputSaysWhoTookOver() {
        try (MockLlmServer server = server(call("transfer_to_writer", "{}"), complete("a poem"))) {
            Cli.Run run = run(server, DESK, "--agent", "lead", "write me a poem");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("a poem\n");
            assertThat(run.err()).contains("lead hands the conversation to writer");
        }
    }

    @Test
    void aKeyASubAgentWritesInPiecesIsRedactedAcrossItsJsonDeltas() {
        String key = "sk-sub-agent-split-9876";
        try (MockLlmServer server = server(dev.bellows.testkit.MockTurn.content(DELEGATE),
                dev.bellows.testkit.MockTurn.content("The key is " + key + ", I read it.\n" + complete("found")).chunkSize(3),
                dev.bellows.testkit.MockTurn.content(complete("done")))) {
            Cli.Run run = run(server, TEAM, "--agent", "lead", "--api-key", key, "--output", "jsonl", "go");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).doesNotContain(key);
            StringBuilder said = new StringBuilder();
            run.outJson().stream().filter(e -> e.get("type").asString().equals("message_content")
                    && e.get("agent").asString().equals("researcher")).forEach(e -> said.append(e.get("content").asString()));
            assertThat(said.toString()).contains("The key is [REDACTED], I read it.");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"agents\": {\"both\": {\"parallel\": [\"a\"], \"then\": \"nobody\"}, \"a\": {}}}"
                    + "|bellows.json: agents.both.then: no agent \"nobody\"",
            "{\"agents\": {\"lead\": {\"agents\": [\"ghost\"]}}}|bellows.json: agents.lead.agents: no agent \"ghost\"",
            "{\"agents\": {\"p\": {\"sequence\": [\"p\"]}}}|bellows.json: agents.p.sequence: names the workflow itself",
            "{\"agents\": {\"x\": {\"sequence\": [\"a\"], \"instructions\": \"hi\"}, \"a\": {}}}"
                    + "|bellows.json: agents.x: is neither a model agent nor a workflow",
            "{\"agents\": {\"x\": \"an agent\"}}|bellows.json: agents.x: must be an object",
            "{\"agents\": {\"react\": {}}}|bellows.json: agents.react: \"react\" is a built-in value of --agent",
            "{\"agents\": {\"default\": {}}}|bellows.json: agents.default: \"default\" is a built-in value of --agent",
            "{\"agents\": {\"p\": {\"sequence\": [\"q\"]}, \"q\": {\"parallel\": [\"p\"]}}}"
                    + "|bellows.json: agents.p: the workflows run each other without end: p -> q -> p",
            "{\"agents\": {\"a\": {\"mcp_servers\": [\"search\"]}}}|bellows.json: agents.a.mcp_servers: no MCP server \"search\"",
            "{\"agents\": {\"l\": {\"loop\": \"l\", \"max_rounds\": 2}}}|bellows.json: agents.l.loop: names the workflow itself",
            "{\"agents\": {\"l\": {\"loop\": \"nobody\", \"max_rounds\": 2}}}|bellows.json: agents.l.loop: no agent \"nobody\"",
            "{\"agents\": {\"l\": {\"loop\": \"a\"}, \"a\": {}}}|bellows.json: agents.l.max_rounds: a loop needs its most rounds",
            "{\"agents\": {\"l\": {\"loop\": \"a\", \"max_rounds\": 0}, \"a\": {}}}"
                    + "|bellows.json: agents.l.max_rounds: must be a whole number from 1",
            "{\"agents\": {\"a\": {\"until\": \"done\"}}}|bellows.json: agents.a.until: only for a loop, which it ends",
            "{\"agents\": {\"r\": {\"router\": [\"a\"]}, \"a\": {}}}"
                    + "|bellows.json: agents.r.chooser: a router needs the agent that picks its route",
            "{\"agents\": {\"r\": {\"router\": [\"a\"], \"chooser\": \"ghost\"}, \"a\": {}}}"
                    + "|bellows.json: agents.r.chooser: no agent \"ghost\"",
            "{\"agents\": {\"r\": {\"router\": [\"a\"], \"loop\": \"a\", \"chooser\": \"a\"}, \"a\": {}}}"
                    + "|bellows.json: agents.r: is neither a model agent nor one workflow: it has both \"loop\" and \"router\"",
            "{\"agents\": {\"l\": {\"loop\": \"r\", \"max_rounds\": 2}, \"r\": {\"router\": [\"l\"], \"chooser\": \"c\"},"
                    + " \"c\": {}}}|bellows.json: agents.l: the workflows run each other without end: l -> r -> l",
    })
    void aConfigWhoseAgentsDoNotHoldTogetherIsAUsageErrorNamingThePath(String config, String message) {
        try (MockLlmServer server = server(complete("never"))) {
            Cli.Run run = run(server, config, "--agent", "default", "task");

            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).startsWith("bellows run: " + message).doesNotContain("\tat ");
            assertThat(run.err().lines()).hasSize(1);
            assertThat(server.requests()).isEmpty();
        }
    }

    @Test
    void anAgentTheConfigDoesNotHaveIsAUsageErrorListingThoseItHas() {
        try (MockLlmServer server = server(complete("never"))) {
            Cli.Run run = run(server, TEAM, "--agent", "nobody", "task");

            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).isEqualTo("bellows run: --agent: unknown agent (default or react, or one of the config"
                    + " file's agents: lead, researcher, writer, pipeline, both)\n");
            assertThat(server.requests()).isEmpty();
        }
    }

    @Test
    void theBuiltInAgentsStayAndRunAsBefore() {
        try (MockLlmServer server = server(complete("plain"))) {
            Cli.Run run = run(server, TEAM, "--agent", "default", "--output", "jsonl", "task");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.outJson()).noneMatch(event -> event.has("agent"));
        }
    }

    @Test
    void agentsListsEachAgentsKindWhatItCallsAndItsTools() {
        Cli.Run run = bellows(TEAM, "agents");

        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("""
                lead  default  calls: researcher  tools: the command line's
                researcher  default  tools: the command line's  model: m2
                writer  react  tools: the command line's
                pipeline  sequence  runs: researcher -> writer
                both  parallel  runs: researcher, writer  then: lead
                """);
        Cli.Run bad = bellows("{\"agents\": {\"a\": {\"handoffs\": [\"b\"]}}}", "agents");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("bellows agents: bellows.json: agents.a.handoffs: no agent \"b\" (the agents: a)\n");
    }

    @Test
    void chatWithAnAgentTalksToItAndItsSubAgents() {
        try (MockLlmServer server = server(DELEGATE, complete("100 C"), call("converse", "{\"message\": \"100 C it is\"}"))) {
            List<String> args = List.of("chat", "--base-url", server.baseUrl().toString(), "--model", "mock",
                    "--data-dir", dir.resolve("data").toString(), "--agent", "lead");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try {
                Files.writeString(dir.resolve("bellows.json"), TEAM);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            int status = BellowsCommand.commandLine(new ByteArrayInputStream("When does water boil?\n"
                            .getBytes(StandardCharsets.UTF_8)), out, err, false,
                    new Host(Map.of(), dir, Interrupts.NONE, false)).execute(args.toArray(String[]::new));

            assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("100 C it is");
            assertThat(server.requests().get(1).body().get("messages").toString()).contains("You find facts.");
        }
    }

    @Test
    void aStoredChatKeepsItsSubAgentsWorkForSessionsShow() throws IOException {
        Files.writeString(dir.resolve("bellows.json"), TEAM);
        String data = dir.resolve("data").toString();
        try (MockLlmServer server = server(DELEGATE, complete("100 C"), call("converse", "{\"message\": \"100 C it is\"}"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = BellowsCommand.commandLine(new ByteArrayInputStream("When does water boil?\n"
                            .getBytes(StandardCharsets.UTF_8)), new ByteArrayOutputStream(), err, false,
                    new Host(Map.of(), dir, Interrupts.NONE, false)).execute("chat", "--base-url",
                    server.baseUrl().toString(), "--model", "mock", "--data-dir", data, "--agent", "lead",
                    "--session", "talk");
            assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        }
        Cli.Run show = bellows(TEAM, "sessions", "show", "talk", "--data-dir", data);
        assertThat(show.status()).as(show.err()).isZero();
        assertThat(show.out()).contains("[sub-agents]\n  agent researcher: find the boiling point\n")
                .contains("    researcher task_completion: 100 C\n");
    }

    @Test
    void chatWithAWorkflowRunsItForEachMessage() {
        String config = """
                {"agents": {
                  "researcher": {"instructions": "You find facts."},
                  "writer": {"instructions": "You write."},
                  "pipeline": {"sequence": ["researcher", "writer"]}
                }}""";
        try (MockLlmServer server = server(complete("tea is a leaf"), complete("A poem: tea is a leaf"))) {
            List<String> args = List.of("chat", "--base-url", server.baseUrl().toString(), "--model", "mock",
                    "--data-dir", dir.resolve("data").toString(), "--agent", "pipeline");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try {
                Files.writeString(dir.resolve("bellows.json"), config);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            int status = BellowsCommand.commandLine(new ByteArrayInputStream("a poem about tea\n"
                            .getBytes(StandardCharsets.UTF_8)), out, err, false,
                    new Host(Map.of(), dir, Interrupts.NONE, false)).execute(args.toArray(String[]::new));

            assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("A poem: tea is a leaf");
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("agent researcher: a poem about tea");
            assertThat(server.requests().get(1).body().get("messages").toString()).contains("You write.");
        }
    }

    /**
     * A parallel workflow gives each of its agents the task, and its {@code then} agent their
     * answers, each headed by its agent's name; the merging agent's answer is the workflow's.
     */
    @Test
    void aParallelWorkflowGivesItsThenAgentEveryAnswerHeadedByItsAgentsName() {
        // the two run at once: each on a mock of its own, so that each gets its own answer
        try (MockLlmServer facts = server(complete("fact: tea is a leaf"));
             MockLlmServer verses = server(complete("verse: tea"));
             MockLlmServer server = server(complete("merged"))) {
            String config = """
                    {"agents": {
                      "researcher": {"instructions": "You find facts.", "base_url": "%s"},
                      "writer": {"instructions": "You write.", "base_url": "%s"},
                      "lead": {"instructions": "You merge."},
                      "both": {"parallel": ["researcher", "writer"], "then": "lead"}
                    }}""".formatted(facts.baseUrl(), verses.baseUrl());
            Cli.Run run = run(server, config, "--agent", "both", "--output", "jsonl", "tea");

            assertThat(run.status()).as(run.err()).isZero();
            List<JsonNode> events = run.outJson();
            assertThat(events).filteredOn(e -> e.get("type").asString().equals("loop_start"))
                    .extracting(e -> e.get("agent").asString()).containsExactlyInAnyOrder("both", "researcher", "writer",
                            "lead");
            assertThat(events.getLast().get("agent").asString()).isEqualTo("both");
            assertThat(events.getLast().get("result").asString()).isEqualTo("merged");
            assertThat(facts.requests().getFirst().body().get("messages").toString()).contains("tea");
            assertThat(verses.requests().getFirst().body().get("messages").toString()).contains("tea");
            assertThat(server.requests()).hasSize(1);
            String merging = server.requests().getFirst().body().get("messages").toString();
            assertThat(merging).contains("researcher").contains("fact: tea is a leaf").contains("writer")
                    .contains("verse: tea");
            assertThat(merging.indexOf("researcher")).isLessThan(merging.indexOf("fact: tea is a leaf"));
        }
    }

    /** An agent offered as a tool is named after the agent, with one argument, {@code task}, a string. */
    @Test
    void anAgentIsOfferedAsAToolNamedAfterItWithOneStringArgumentTask() {
        try (MockLlmServer server = server(dev.bellows.testkit.MockTurn.toolCalls(dev.bellows.testkit.MockToolCall.of(
                "task_completion", "{\"result\": \"nothing to delegate\"}")))) {
            Cli.Run run = run(server, TEAM, "--agent", "lead", "--tool-mode", "native", "--output", "jsonl", "hi");

            assertThat(run.status()).as(run.err()).isZero();
            JsonNode tools = server.requests().getFirst().body().get("tools");
            JsonNode researcher = null;
            for (JsonNode tool : tools) {
                if (tool.at("/function/name").asString().equals("researcher")) {
                    researcher = tool.at("/function/parameters");
                }
            }
            assertThat(researcher).as(tools.toString()).isNotNull();
            assertThat(researcher.get("properties").propertyNames()).containsExactly("task");
            assertThat(researcher.at("/properties/task/type").asString()).isEqualTo("string");
            assertThat(researcher.get("required").toString()).isEqualTo("[\"task\"]");
        }
    }

    /**
     * An agent's {@code mcp_servers} and {@code tools} choose what its model is offered, from the
     * run's MCP servers: lead the counter's tool only, researcher write_file only; a name that is
     * no tool is a usage error naming the path.
     */
    @Test
    void anAgentsOwnToolsAndMcpServersAreAllItsModelIsOffered() throws Exception {
        String servers = "\"mcpServers\": {\"files\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.writeValueAsString(ApprovalsCliTest.script()) + "], \"env\": {\"CALL_LOG\": "
                + Cli.MAPPER.writeValueAsString(dir.resolve("files.log").toString()) + "}}, \"counter\": {\"command\":"
                + " \"node\", \"args\": [" + Cli.MAPPER.writeValueAsString(java.nio.file.Path.of(getClass()
                .getResource("/servers/counting-server.js").toURI()).toString()) + ", "
                + Cli.MAPPER.writeValueAsString(dir.resolve("counts.log").toString()) + "]}}";
        String config = "{" + servers + ", \"agents\": {"
                + "\"lead\": {\"instructions\": \"You plan.\", \"mcp_servers\": [\"counter\"], \"agents\": [\"researcher\"]},"
                + "\"researcher\": {\"instructions\": \"You find facts.\", \"tools\": [\"write_file\"]}}}";
        try (MockLlmServer server = server(DELEGATE, complete("found"), complete("done"))) {
            Cli.Run run = run(server, config, "--agent", "lead", "--output", "jsonl", "go");

            assertThat(run.status()).as(run.err()).isZero();
            String lead = server.requests().get(0).body().get("messages").toString();
            String researcher = server.requests().get(1).body().get("messages").toString();
            assertThat(lead).contains("Records one call.").contains("the agent researcher")
                    .doesNotContain("Writes a file").doesNotContain("Deletes a file");
            assertThat(researcher).contains("Writes a file").doesNotContain("Deletes a file")
                    .doesNotContain("Records one call.");
        }
        String wrong = config.replace("[\"write_file\"]", "[\"write_files\"]");
        try (MockLlmServer server = server(complete("never"))) {
            Cli.Run run = run(server, wrong, "--agent", "lead", "go");

            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).startsWith("bellows run: agents.researcher.tools: no tool \"write_files\"");
            assertThat(server.requests()).isEmpty();
        }
    }

    /** An agent's own base_url is where its model calls go; the others keep the command line's. */
    @Test
    void anAgentsOwnBaseUrlTakesItsModelCallsElsewhere() {
        try (MockLlmServer own = server(complete("from the own endpoint"));
             MockLlmServer server = server(DELEGATE, complete("done"))) {
            String config = """
                    {"agents": {
                      "lead": {"instructions": "You plan and delegate.", "agents": ["researcher"]},
                      "researcher": {"instructions": "You find facts.", "base_url": "%s"}
                    }}""".formatted(own.baseUrl());
            Cli.Run run = run(server, config, "--agent", "lead", "--output", "jsonl", "go");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(own.requests()).hasSize(1);
            assertThat(own.requests().getFirst().body().get("messages").toString()).contains("You find facts.");
            assertThat(server.requests()).hasSize(2);
            assertThat(run.outJson()).anySatisfy(e -> assertThat(e.path("result").asString())
                    .isEqualTo("from the own endpoint"));
        }
    }

    /** Without {@code --max-depth}, nesting stops at 5: the agent at depth 5 is offered no agent to call. */
    @Test
    void nestingStopsAtDepthFiveByDefault() {
        String self = """
                {"agents": {"a": {"instructions": "A.", "agents": ["a"]}}}""";
        String deeper = call("a", "{\"task\": \"deeper\"}");
        try (MockLlmServer server = server(deeper, deeper, deeper, deeper, deeper, complete("bottom"), complete("4"),
                complete("3"), complete("2"), complete("1"), complete("top"))) {
            Cli.Run run = run(server, self, "--agent", "a", "--output", "jsonl", "go");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(server.requests()).hasSize(11);
            for (int depth = 0; depth < 5; depth++) {
                assertThat(server.requests().get(depth).body().get("messages").toString()).as("depth " + depth)
                        .contains("Gives a task to the agent a");
            }
            assertThat(server.requests().get(5).body().get("messages").toString())
                    .doesNotContain("Gives a task to the agent a");
            assertThat(run.outJson().getLast().get("result").asString()).isEqualTo("top");
        }
    }

    /**
     * cli.md's example config, as it stands there: checked and listed by {@code bellows agents},
     * each agent's calls, handoffs, tools, MCP servers and model.
     */
    @Test
    void theContractsExampleConfigIsListedByBellowsAgents() {
        String example = """
                {
                  "mcpServers": {"search": {"command": "true"}},
                  "agents": {
                    "lead":       {"instructions": "You plan and delegate.", "agents": ["researcher"], "handoffs": ["writer"]},
                    "researcher": {"instructions": "You find facts.", "model": "m2", "mcp_servers": ["search"], "tools": ["calculator"]},
                    "writer":     {"instructions": "You write the final text."},
                    "pipeline":   {"sequence": ["researcher", "writer"]},
                    "both":       {"parallel": ["researcher", "writer"], "then": "lead"}
                  }
                }""";
        Cli.Run run = bellows(example, "agents");

        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("""
                lead  default  calls: researcher  handoffs: writer  tools: the command line's
                researcher  default  tools: calculator  mcp_servers: search  model: m2
                writer  default  tools: the command line's
                pipeline  sequence  runs: researcher -> writer
                both  parallel  runs: researcher, writer  then: lead
                """);
    }

    /** A loop gives its agent the task, then each answer again, until an answer says its until text. */
    @Test
    void aLoopRunsItsAgentAgainOnItsAnswerUntilAnAnswerSaysItsUntilText() {
        String config = """
                {"agents": {
                  "editor": {"instructions": "You improve the text; say FINAL when it is done."},
                  "polish": {"loop": "editor", "until": "FINAL", "max_rounds": 3}
                }}""";
        try (MockLlmServer server = server(complete("draft two"), complete("FINAL draft three"), complete("never"))) {
            Cli.Run run = run(server, config, "--agent", "polish", "--output", "jsonl", "draft one");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.outJson().getLast().get("agent").asString()).isEqualTo("polish");
            assertThat(run.outJson().getLast().get("result").asString()).isEqualTo("FINAL draft three");
            assertThat(server.requests()).hasSize(2);
            assertThat(server.requests().get(0).body().get("messages").toString()).contains("draft one");
            assertThat(server.requests().get(1).body().get("messages").toString()).contains("draft two")
                    .doesNotContain("draft one");
        }
        String bounded = config.replace("\"until\": \"FINAL\", \"max_rounds\": 3", "\"max_rounds\": 2");
        try (MockLlmServer server = server(complete("FINAL two"), complete("FINAL three"), complete("never"))) {
            Cli.Run run = run(server, bounded, "--agent", "polish", "--output", "jsonl", "draft one");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.outJson().getLast().get("result").asString()).isEqualTo("FINAL three");
            assertThat(server.requests()).hasSize(2);
        }
    }

    /** A router's chooser (an agent) picks the route; that agent's answer is the router's. */
    @Test
    void aRouterRunsTheAgentItsChooserPicks() {
        String config = """
                {"agents": {
                  "triage": {"instructions": "You pick."},
                  "billing": {"instructions": "You answer about invoices."},
                  "tech": {"instructions": "You fix computers."},
                  "desk": {"router": ["billing", "tech"], "chooser": "triage"},
                  "lead": {"agents": ["desk"]}
                }}""";
        try (MockLlmServer server = server(complete("tech"), complete("reboot it"))) {
            Cli.Run run = run(server, config, "--agent", "desk", "--output", "jsonl", "my laptop hangs");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.outJson().getLast().get("result").asString()).isEqualTo("reboot it");
            String asked = server.requests().get(0).body().get("messages").toString();
            assertThat(asked).contains("You pick.", "billing", "tech", "my laptop hangs");
            assertThat(server.requests().get(1).body().get("messages").toString()).contains("You fix computers.",
                    "my laptop hangs").doesNotContain("You answer about invoices.");
        }
        Cli.Run listed = bellows(config, "agents");
        assertThat(listed.status()).as(listed.err()).isZero();
        assertThat(listed.out()).contains("desk  router  routes: billing, tech  chooser: triage\n",
                "lead  default  calls: desk  tools: the command line's\n");
        Cli.Run loop = bellows("{\"agents\": {\"e\": {}, \"p\": {\"loop\": \"e\", \"until\": \"FINAL\", \"max_rounds\": 3}}}",
                "agents");
        assertThat(loop.out()).contains("p  loop  runs: e  until: FINAL  max_rounds: 3\n");
    }

    private static int indexOf(List<JsonNode> events, java.util.function.Predicate<JsonNode> test) {
        for (int i = 0; i < events.size(); i++) {
            if (test.test(events.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such event");
    }
}
