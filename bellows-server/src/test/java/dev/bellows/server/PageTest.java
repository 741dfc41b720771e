package dev.bellows.server;

import dev.bellows.testkit.Background;
import static dev.bellows.server.ServerFixture.call;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page in a real headless Chromium (Debian's), driven with playwright-core as a person
 * would use it; a screenshot of each state goes to {@code target/page-screenshots/}. One
 * browser serves the whole class (page-browser.cjs); each test's driver connects to it and
 * works in a browser context of its own (its own storage, as a fresh profile would have).
 */
class PageTest {

    static final String PLAYWRIGHT = dev.bellows.testkit.Chromium.PLAYWRIGHT;

    private static Path modules;
    private static Process browser;
    private static String browserEndpoint;

    @BeforeAll
    static void browser(@TempDir Path dir) throws Exception {
        NodeScripts.chromium();
        modules = NodeScripts.install("playwright", PLAYWRIGHT);
        Path launcher = NodeScripts.resource("page-browser.cjs", dir);
        Path log = Path.of("target", "page-browser.log").toAbsolutePath();
        ProcessBuilder builder = new ProcessBuilder("node", launcher.toString()).redirectError(log.toFile());
        builder.environment().put("PLAYWRIGHT", modules.resolve("playwright-core").toString());
        browser = builder.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(browser.getInputStream(), StandardCharsets.UTF_8));
        // a hang guard, not a measure: the first line comes once the browser is up
        String line = Background.supply(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        }).get(300, TimeUnit.SECONDS);
        JsonNode started = ServerFixture.MAPPER.readTree(line == null ? "{}" : line);
        assertThat(started.path("ws").asString("")).as("page-browser.cjs said %s; its log: %s", line, log).startsWith("ws://");
        browserEndpoint = started.get("ws").asString();
    }

    @AfterAll
    static void closeBrowser() throws Exception {
        if (browser == null) {
            return;
        }
        List<ProcessHandle> all = new java.util.ArrayList<>(browser.descendants().toList());
        browser.getOutputStream().close();      // page-browser.cjs closes the browser when its input ends
        if (!browser.waitFor(60, TimeUnit.SECONDS)) {
            browser.destroyForcibly();
        }
        for (ProcessHandle process : all) {
            process.destroyForcibly();
        }
    }

    /** The environment of a driver: playwright-core and the class's browser. */
    private static Map<String, String> driverEnv(Map<String, String> more) {
        Map<String, String> env = new java.util.HashMap<>(more);
        env.put("PLAYWRIGHT", modules.resolve("playwright-core").toString());
        env.put("BROWSER_WS", browserEndpoint);
        return env;
    }

    record Add(int a, int b) {
    }

    record Wait(String why) {
    }

    private static final String ANSWER = "## The answer\\n\\n40 + 2 is **42**.\\n\\n- checked with `add`\\n- no rounding\\n\\n"
            + "```python\\nprint(40 + 2)\\n```\\n\\nUntrusted: <script>alert('x')</script> <img src=x onerror=alert(2)>"
            + " [docs](https://example.com/docs) [trap](javascript:alert(3))";

    @Test
    void aPersonChatsSeesEachStepStopsARunAndFindsTheConversationAfterAReload(@TempDir Path dir) throws Exception {
        Path driver = NodeScripts.resource("page-driver.cjs", dir);
        Path shots = Path.of("target", "page-screenshots").toAbsolutePath();
        Files.createDirectories(shots);

        CompletableFuture<Boolean> waitInterrupted = new CompletableFuture<>();
        // add runs until the driver has read its card's state (the driver writes this file then):
        // the card is seen while the call is under way however slow the browser is
        Path toolSeen = dir.resolve("tool-seen");
        ToolRegistry tools = new ToolRegistry()
                .register(TypedTool.of("add", "Adds two numbers.", Add.class, (context, args) -> {
                    for (int i = 0; i < 3000 && !Files.exists(toolSeen); i++) {      // a hang guard, not a measure
                        Thread.sleep(20);
                    }
                    return ToolResult.of(args.a() + args.b());
                }))
                .register(TypedTool.of("wait", "Waits.", Wait.class, (context, args) -> {
                    try {
                        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                    } catch (InterruptedException e) {
                        waitInterrupted.complete(true);
                        throw e;
                    }
                    return ToolResult.of("waited");
                }));
        String plan = "{\"steps\": [{\"description\": \"Add 40 and 2\", \"status\": \"%s\"},"
                + " {\"description\": \"Write the answer\", \"status\": \"%s\"}]}";
        MockScript script = MockScript.of(
                MockTurn.content("<thinking>The user wants a sum. I add the numbers with the tool, then answer.</thinking>"
                        + "I will add them. " + call("update_plan", plan.formatted("in_progress", "pending"))).chunkSize(3).delayMs(25),
                MockTurn.content(call("add", "{\"a\": 40, \"b\": 2}")).chunkSize(2).delayMs(60),
                MockTurn.content(call("update_plan", plan.formatted("completed", "completed"))).chunkSize(8).delayMs(20),
                MockTurn.content(call("task_completion", "{\"result\": \"" + ANSWER + "\"}")).chunkSize(4).delayMs(40),
                MockTurn.content(call("wait", "{\"why\": \"the user asked\"}")).chunkSize(8));
        try (ServerFixture fixture = new ServerFixture(script, b -> { }, tools)) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", driver.toString(), fixture.uri("/").toString(),
                    shots.toString()), driverEnv(Map.of("TOOL_SEEN", toolSeen.toString())), 300);
            String lastLine = result.out().strip().lines().reduce((a, b) -> b).orElse("{}");
            JsonNode seen = ServerFixture.MAPPER.readTree(lastLine);
            assertThat(seen.path("error").asString("")).as(result.err()).isEmpty();
            assertThat(result.status()).isZero();

            assertThat(seen.get("shiftEnterValue").asString()).isEqualTo("first line\nsecond line");
            assertThat(seen.get("turnsAfterShiftEnter").asInt()).isZero();
            assertThat(seen.get("userText").asString()).isEqualTo("What is 40 + 2?");
            assertThat(seen.get("thinkingOpen").asBoolean()).isFalse();
            assertThat(seen.get("toolStateAtName").asString()).isIn("Writing arguments\u2026", "Running\u2026");
            assertThat(seen.get("toolNames").toString()).contains("add").doesNotContain("task_completion", "update_plan");
            assertThat(seen.get("toolResult").asString()).isEqualTo("42");
            assertThat(seen.get("planSteps").toString()).contains("completed:\u2713Add 40 and 2");

            JsonNode answer = seen.get("answer").get(seen.get("answer").size() - 1);
            assertThat(answer.get("headings").toString()).contains("The answer");
            assertThat(answer.get("strong").toString()).contains("42");
            assertThat(answer.get("code").toString()).contains("print(40 + 2)");
            assertThat(answer.get("items").toString()).contains("checked with add", "no rounding");
            assertThat(answer.get("links").toString()).as(answer.toString()).contains("https://example.com/docs").doesNotContain("javascript");
            assertThat(answer.get("scripts").asInt()).isZero();
            assertThat(seen.get("answerWhileRunning").asBoolean()).isTrue();
            assertThat(seen.get("answerHeadingCount").asInt()).isEqualTo(1);
            assertThat(answer.get("text").asString()).contains("<script>alert('x')</script>");   // shown as text
            assertThat(seen.get("dialogs")).isEmpty();
            assertThat(seen.get("consoleErrors")).isEmpty();

            assertThat(seen.at("/afterReload/user").asString()).isEqualTo("What is 40 + 2?");
            assertThat(seen.at("/afterReload/threads").toString()).contains("What is 40 + 2?");
            assertThat(seen.get("theme").asString()).isEqualTo("dark");

            assertThat(seen.get("stopVisible").asBoolean()).isTrue();
            assertThat(waitInterrupted.get(30, TimeUnit.SECONDS)).isTrue();     // Stop reached the tool on the server
            assertThat(seen.get("threadsAtEnd").size()).isEqualTo(2);
            assertThat(seen.get("narrowOpened").asString()).isEqualTo("What is 40 + 2?");   // from the menu, on a narrow screen
            assertThat(seen.get("narrowSidebarHidden").asBoolean()).isTrue();
            for (String name : List.of("01-empty", "02-thinking", "03-tool-call", "04-plan", "04b-answer-streaming", "05-answer", "06-reloaded",
                    "07-dark", "08-running", "09-stopped", "10-narrow")) {
                assertThat(shots.resolve(name + ".png")).isNotEmptyFile();
            }
        }
    }

    record Notes(String path) {
    }

    /**
     * Each sub-agent is a nested card in the card of the call that runs it, streaming its work
     * while it runs (seen while the inner one's tool is held until the driver has looked), done
     * after, and kept over a reload.
     */
    @Test
    void aPersonSeesEachSubAgentAsANestedCardThatStreams(@TempDir Path dir) throws Exception {
        Path driver = NodeScripts.resource("page-subagents.cjs", dir);
        Path shots = Path.of("target", "page-screenshots").toAbsolutePath();
        Files.createDirectories(shots);
        Path release = dir.resolve("release");
        ToolRegistry holding = new ToolRegistry().register(TypedTool.of("hold", "Holds.", Wait.class, (context, args) -> {
            for (int i = 0; i < 6000 && !Files.exists(release); i++) {      // a hang guard, not a measure
                Thread.sleep(20);
            }
            return ToolResult.of("held");
        }));
        dev.bellows.agent.DefaultAgent checker = dev.bellows.agent.DefaultAgent.builder().name("checker")
                .provider(new dev.bellows.testkit.ScriptedProvider(MockScript.of(
                        MockTurn.content("Checking the sum. " + call("hold", "{\"why\": \"to be seen\"}")).chunkSize(5),
                        MockTurn.content(call("task_completion", "{\"result\": \"42 is right.\"}")).chunkSize(5))))
                .model("mock").toolRegistry(holding).build();
        dev.bellows.agent.DefaultAgent researcher = dev.bellows.agent.DefaultAgent.builder().name("researcher")
                .provider(new dev.bellows.testkit.ScriptedProvider(MockScript.of(
                        MockTurn.content("<thinking>40 + 2 is 42; the checker should confirm it.</thinking>"
                                + call("checker", "{\"task\": \"Check that 40 + 2 = 42\"}")).chunkSize(5),
                        MockTurn.content(call("task_completion", "{\"result\": \"40 + 2 = 42, checked.\"}")).chunkSize(5))))
                .model("mock").toolRegistry(new ToolRegistry().register(
                        dev.bellows.agent.AgentTool.of("checker", "Checks a result", checker))).build();
        ToolRegistry tools = new ToolRegistry().register(dev.bellows.agent.AgentTool.of("researcher", "Finds facts", researcher));
        MockScript script = MockScript.of(
                MockTurn.content("I will ask the researcher. " + call("researcher", "{\"task\": \"Find 40 + 2 and have it checked\"}"))
                        .chunkSize(5),
                MockTurn.content(call("task_completion", "{\"result\": \"The researcher found **42**, and it was checked.\"}"))
                        .chunkSize(5));
        try (ServerFixture fixture = new ServerFixture(script, b -> { }, tools)) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", driver.toString(), fixture.uri("/").toString(),
                    shots.toString(), release.toString()), driverEnv(Map.of()), 300);
            JsonNode seen = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(seen.path("error").asString("")).as(result.err()).isEmpty();
            assertThat(result.status()).isZero();

            SoftAssertions.assertSoftly(soft -> {
                soft.assertThat(seen.at("/working/0/name").asString()).isEqualTo("researcher");
                soft.assertThat(seen.at("/working/0/depth").asInt()).isZero();
                soft.assertThat(seen.at("/working/0/inCallOf").asString()).as("in the card of the lead's call").isEqualTo("researcher");
                soft.assertThat(seen.at("/working/0/state").asString()).isEqualTo("Working\u2026");
                soft.assertThat(seen.at("/working/0/task").asString()).isEqualTo("Find 40 + 2 and have it checked");
                soft.assertThat(seen.at("/working/1/name").asString()).isEqualTo("checker");
                soft.assertThat(seen.at("/working/1/depth").asInt()).as("inside the researcher's card").isEqualTo(1);
                soft.assertThat(seen.at("/working/1/inCallOf").asString()).isEqualTo("checker");
                soft.assertThat(seen.at("/working/1/state").asString()).isEqualTo("Working\u2026");
                soft.assertThat(seen.at("/working/1/text").asString()).as("its text streamed in").contains("Checking the sum.");
                soft.assertThat(seen.get("researcherThinking").asInt()).as("the researcher's thinking in its card").isEqualTo(1);
                soft.assertThat(seen.at("/done/0/state").asString()).isEqualTo("Done");
                soft.assertThat(seen.at("/done/1/state").asString()).isEqualTo("Done");
                soft.assertThat(seen.at("/done/1/text").asString()).contains("42 is right.");
                soft.assertThat(seen.at("/done/0/text").asString()).contains("40 + 2 = 42, checked.");
                soft.assertThat(seen.get("topLevelCards").toString()).as("the sub-agents' calls are not the lead's")
                        .isEqualTo("[\"researcher\"]");
                soft.assertThat(seen.get("afterReload").toString()).as("kept over a reload").isEqualTo(seen.get("done").toString());
            });
            assertThat(seen.get("consoleErrors")).isEmpty();
            for (String name : List.of("21-subagents-working", "22-subagents-done")) {
                assertThat(shots.resolve(name + ".png")).isNotEmptyFile();
            }
        }
    }


    @Test
    void aPersonApprovesAndDeniesWaitingCallsOnThePage(@TempDir Path dir) throws Exception {
        Path driver = NodeScripts.resource("page-approvals.cjs", dir);
        Path shots = Path.of("target", "page-screenshots").toAbsolutePath();
        Files.createDirectories(shots);
        List<String> writes = new java.util.concurrent.CopyOnWriteArrayList<>();
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("write_file", "Writes a file.", Notes.class,
                (context, args) -> {
                    writes.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                }));
        String plan = "{\"steps\": [{\"description\": \"Write the notes\", \"status\": \"in_progress\"}]}";
        MockScript script = MockScript.of(
                MockTurn.content(call("update_plan", plan) + call("write_file", "{\"path\": \"notes.md\"}")).chunkSize(6),
                MockTurn.content(call("task_completion", "{\"result\": \"I left the notes alone.\"}")).chunkSize(6),
                MockTurn.content(call("write_file", "{\"path\": \"notes.md\"}")).chunkSize(6),
                MockTurn.content(call("task_completion", "{\"result\": \"Wrote the notes.\"}")).chunkSize(6));
        try (ServerFixture fixture = new ServerFixture(script, b -> { }, tools, dev.bellows.server.jetty.JettyAgentServer.IDLE_TIMEOUT,
                agent -> agent.requireApproval("local/write_file"))) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", driver.toString(), fixture.uri("/").toString(),
                    shots.toString()), driverEnv(Map.of()), 300);
            JsonNode seen = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(seen.path("error").asString("")).as(result.err()).isEmpty();
            assertThat(result.status()).isZero();

            assertThat(seen.get("waitingName").asString()).isEqualTo("write_file");
            assertThat(seen.get("waitingState").asString()).isEqualTo("Waiting for you");
            assertThat(seen.get("question").asString()).contains("write_file").contains("notes.md");
            assertThat(seen.get("reasonHiddenAtFirst").asBoolean()).isTrue();
            assertThat(seen.get("waitingAfterReload").asInt()).isEqualTo(1);
            assertThat(seen.get("reasonFocused").asBoolean()).isTrue();
            assertThat(seen.get("deniedState").toString()).contains("Denied");
            assertThat(seen.get("deniedResult").toString()).contains("keep them in the wiki");
            assertThat(fixture.provider.requests().get(1).messages().toString()).contains("keep them in the wiki");
            assertThat(seen.get("approvedResults").toString()).contains("wrote notes.md");
            assertThat(seen.get("approvalsLeft").asInt()).isZero();
            // each its own check, all reported at once
            SoftAssertions.assertSoftly(soft -> {
                soft.assertThat(seen.get("statusWhileWaiting").asString()).as("top bar while a call waits")
                        .isEqualTo("A call waits for your decision");
                soft.assertThat(seen.get("statusAfterReload").asString()).as("top bar after a reload")
                        .isEqualTo("A call waits for your decision");
                soft.assertThat(seen.get("statusAfterDecision").asString()).as("top bar once decided and done").isEmpty();
                soft.assertThat(seen.get("planAnimationWhileWaiting").asString()).as("plan step once its run ended")
                        .isEqualTo("none");
                soft.assertThat(seen.get("planAnimationAtEnd").toString()).as("plan steps at the end").doesNotContain("spin");
                soft.assertThat(seen.get("refusedNotices").asInt()).as("decide-first notices, a message sent twice").isEqualTo(1);
                soft.assertThat(seen.get("decideFirstAfterDecision").asInt()).as("decide-first notices after a decision").isZero();
                soft.assertThat(seen.get("plansAfterResume").asInt()).as("plan cards after a resume").isEqualTo(1);
                soft.assertThat(seen.get("decisionsAfterDenialAndReload").toString()).as("the denial after a reload")
                        .contains("Denied: keep them in the wiki");
                soft.assertThat(seen.get("decisionsAfterReload").toString()).as("both decisions after a reload")
                        .contains("Denied: keep them in the wiki", "Approved.");
            });
            assertThat(writes).containsExactly("notes.md");      // the denied call never ran, the approved one once
            assertThat(seen.get("consoleErrors")).isEmpty();
            for (String name : List.of("11-approval-waiting", "12-deny-reason", "13-denied", "14-approved")) {
                assertThat(shots.resolve(name + ".png")).isNotEmptyFile();
            }
        }
    }

    @Test
    void aServerWithATokenHasThePageAskForItAndTheMessageGoesThrough(@TempDir Path dir) throws Exception {
        Path driver = NodeScripts.resource("page-token.cjs", dir);
        Path shots = Path.of("target", "page-screenshots").toAbsolutePath();
        Files.createDirectories(shots);
        String token = "tok-page-7f3a9c";
        MockScript script = MockScript.of(MockTurn.content(call("converse", "{\"message\": \"Hello, you are in.\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> b.authToken(token))) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", driver.toString(), fixture.uri("/").toString(),
                    shots.toString(), token), driverEnv(Map.of()), 300);
            JsonNode seen = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(seen.path("error").asString("")).as(result.err()).isEmpty();
            assertThat(seen.get("refusedAtFirst").asBoolean()).isFalse();
            assertThat(seen.get("refusedText").asString()).contains("refused");
            assertThat(seen.get("answer").asString()).isEqualTo("Hello, you are in.");
            assertThat(seen.get("errors")).isEmpty();
            assertThat(seen.get("pageHasToken").asBoolean()).isFalse();
            assertThat(seen.get("consoleErrors")).isEmpty();
            assertThat(fixture.provider.turnsTaken()).isEqualTo(1);     // the 401 reached no model
        }
    }

    /** The page another origin serves: it posts a run to the agent server every way a page can without asking. */
    private static final String HOSTILE_PAGE = """
            <!doctype html><title>hostile</title><pre id="log"></pre><script>
            const target = "TARGET";
            const body = JSON.stringify({threadId: "hostile", runId: "r1", tools: [], context: [], state: {},
              forwardedProps: {}, messages: [{id: "m1", role: "user", content: "Write the file."}]});
            async function attempt(init) {
              try {
                const response = await fetch(target + "agui", init);
                return response.type === "opaque" ? "sent" : response.status;
              } catch (error) {
                return "failed: " + error.message;
              }
            }
            (async () => {
              const log = {};
              log.textPlain = await attempt({mode: "no-cors", method: "POST", headers: {"Content-Type": "text/plain"}, body});
              log.untypedBlob = await attempt({mode: "no-cors", method: "POST", body: new Blob([body])});
              log.completions = await (async () => {
                try {
                  await fetch(target + "v1/chat/completions", {mode: "no-cors", method: "POST", headers: {"Content-Type": "text/plain"},
                    body: JSON.stringify({messages: [{role: "user", content: "Write the file."}]})});
                  return "sent";
                } catch (error) {
                  return "failed: " + error.message;
                }
              })();
              log.cors = await attempt({method: "POST", headers: {"Content-Type": "application/json"}, body});
              document.getElementById("log").textContent = JSON.stringify(log);
              document.body.dataset.done = "1";
            })();
            </script>
            """;

    @Test
    void aPageOfAnotherOriginOrAReboundNameCannotMakeTheServerRunAnything(@TempDir Path dir) throws Exception {
        Path driver = NodeScripts.resource("page-cross-origin.cjs", dir);
        List<String> writes = new java.util.concurrent.CopyOnWriteArrayList<>();
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("write_file", "Writes a file.", Notes.class,
                (context, args) -> {
                    writes.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                }));
        MockScript script = MockScript.of(MockTurn.content(call("write_file", "{\"path\": \"pwned.md\"}")).chunkSize(6),
                MockTurn.content(call("task_completion", "{\"result\": \"done\"}")).chunkSize(6));
        com.sun.net.httpserver.HttpServer hostile = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        try (ServerFixture fixture = new ServerFixture(script, b -> { }, tools)) {
            byte[] page = HOSTILE_PAGE.replace("TARGET", fixture.uri("/").toString()).getBytes(StandardCharsets.UTF_8);
            hostile.createContext("/", exchange -> {
                exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
                exchange.sendResponseHeaders(200, page.length);
                exchange.getResponseBody().write(page);
                exchange.close();
            });
            hostile.start();
            // localhost, not 127.0.0.1: another site, as the page of issue 31 was
            String attacker = "http://localhost:" + hostile.getAddress().getPort() + "/";
            NodeScripts.Result result = NodeScripts.run(List.of("node", driver.toString(), attacker,
                    Integer.toString(fixture.http.port())), driverEnv(Map.of()), 300);
            JsonNode seen = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(seen.path("error").asString("")).as(result.err()).isEmpty();
            assertThat(seen.at("/crossOrigin/textPlain").asString()).isEqualTo("sent");     // the browser sent them
            assertThat(seen.at("/crossOrigin/untypedBlob").asString()).isEqualTo("sent");
            assertThat(seen.at("/crossOrigin/cors").asString()).startsWith("failed");     // its preflight refused
            assertThat(seen.get("reboundPageStatus").asInt()).isEqualTo(403);
            assertThat(seen.get("reboundRunStatus").asInt()).isEqualTo(403);

            // a hang guard, not a measure: a run the requests started (none should have) ends first
            for (int i = 0; i < 3000 && fixture.server.runningRuns() > 0; i++) {
                Thread.sleep(10);
            }
            assertThat(fixture.provider.turnsTaken()).as("the model was asked").isZero();
            assertThat(writes).as("the tool ran").isEmpty();
        } finally {
            hostile.stop(0);
        }
    }
}
