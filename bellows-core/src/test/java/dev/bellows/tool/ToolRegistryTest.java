package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ToolRegistryTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    /** A tool with a one-string-argument schema that echoes its name. */
    record FakeTool(String name) implements Tool {

        @Override
        public String description() {
            return "the " + name + " tool";
        }

        @Override
        public ObjectNode inputSchema() {
            ObjectNode schema = JSON.createObjectNode().put("type", "object");
            schema.putObject("properties").putObject("text").put("type", "string");
            return schema;
        }

        @Override
        public ToolResult<?> call(ToolContext context, JsonNode arguments) {
            return ToolResult.of(name);
        }
    }

    /** A source that lists the given tools, counting how often it was asked and closed. */
    static class FakeSource implements ToolSource {
        final String serverName;
        volatile List<Tool> tools;
        volatile ToolException listFailure;
        volatile RuntimeException closeFailure;
        final AtomicInteger listed = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();

        FakeSource(String serverName, String... toolNames) {
            this.serverName = serverName;
            this.tools = tools(toolNames);
        }

        static List<Tool> tools(String... names) {
            return new ArrayList<>(java.util.Arrays.stream(names).<Tool>map(FakeTool::new).toList());
        }

        FakeSource failingToList(String message) {
            listFailure = new ToolException(message);
            return this;
        }

        FakeSource failingToClose(String message) {
            closeFailure = new IllegalStateException(message);
            return this;
        }

        @Override
        public String serverName() {
            return serverName;
        }

        @Override
        public List<Tool> tools() throws ToolException {
            listed.incrementAndGet();
            if (listFailure != null) {
                throw listFailure;
            }
            return tools;
        }

        @Override
        public void close() {
            closed.incrementAndGet();
            if (closeFailure != null) {
                throw closeFailure;
            }
        }

        @Override
        public String toString() {
            return "FakeSource(" + serverName + ")";
        }
    }

    private static ToolRegistry localAndEverything() {
        return new ToolRegistry()
                .register(new FakeTool("read_file"))
                .register(new FakeTool("write_file"))
                .addSource(new FakeSource("everything", "echo", "add"));
    }

    private static List<String> names(ToolRegistry registry) {
        return registry.tools().stream().map(t -> t.serverName() + "/" + t.toolName()).toList();
    }

    @Nested
    class Registering {

        @Test
        void localToolsGoOnServerLocal() throws ToolException {
            Tool read = new FakeTool("read_file");
            ToolRegistry registry = new ToolRegistry().register(read);

            assertThat(registry.lookup("local", "read_file")).isSameAs(read);
            assertThat(registry.find(ToolCall.LOCAL_SERVER, "read_file")).containsSame(read);
            assertThat(registry.serverNames()).containsExactly("local");
            assertThat(registry.tools()).containsExactly(new RegisteredTool("local", read));
        }

        @Test
        void toolsAreListedInRegistrationOrderGroupedByServer() {
            ToolRegistry registry = new ToolRegistry()
                    .register(new FakeTool("b"))
                    .register("fs", new FakeTool("z"))
                    .addSource(new FakeSource("everything", "echo", "add"))
                    .register(new FakeTool("a"))
                    .register("fs", new FakeTool("y"));

            assertThat(names(registry)).containsExactly(
                    "local/b", "local/a", "fs/z", "fs/y", "everything/echo", "everything/add");
            assertThat(registry.serverNames()).containsExactly("local", "fs", "everything");
        }

        @Test
        void theSameNameMayExistOnDifferentServers() throws ToolException {
            Tool local = new FakeTool("echo");
            ToolRegistry registry = new ToolRegistry().register(local).addSource(new FakeSource("everything", "echo"));

            assertThat(registry.lookup("local", "echo")).isSameAs(local);
            assertThat(registry.lookup("everything", "echo")).isNotSameAs(local);
        }

        @Test
        void aToolRegisteredTwiceOnAServerIsAnError() {
            ToolRegistry registry = new ToolRegistry().register(new FakeTool("read_file"));

            assertThatThrownBy(() -> registry.register(new FakeTool("read_file")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("server \"local\" already has a tool named \"read_file\"; tool names must be unique "
                            + "within a server (rename one, or register it on another server)");
            assertThat(registry.tools()).hasSize(1);
        }

        @Test
        void blankNamesAreErrors() {
            ToolRegistry registry = new ToolRegistry();

            assertThatThrownBy(() -> registry.register(new FakeTool(" ")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a tool on server \"local\" has a blank name; every tool needs a name the model can call it by");
            assertThatThrownBy(() -> registry.register(new FakeTool(null)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("blank name");
            assertThatThrownBy(() -> registry.register("", new FakeTool("x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("server name must not be blank");
            assertThatThrownBy(() -> registry.addSource(new FakeSource("  ", "x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("server name must not be blank");
        }

        @Test
        void toolNamesHaveNoWhitespace() {
            assertThatThrownBy(() -> new ToolRegistry().register(new FakeTool("read file")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("tool name \"read file\" on server \"local\" must not contain whitespace or control characters");
        }

        @Test
        void serverNamesUseASmallAlphabet() {
            ToolRegistry registry = new ToolRegistry();
            for (String good : List.of("fs", "my-server", "my_server", "v1.2", "A9")) {
                assertThatCode(() -> registry.register(good, new FakeTool("t"))).doesNotThrowAnyException();
            }
            for (String bad : List.of("my server", "a/b", "ser:ver", "é", "x\n")) {
                assertThatThrownBy(() -> registry.register(bad, new FakeTool("t")))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("server name \"" + bad + "\" may only contain letters, digits, '_', '-' and '.'");
            }
        }

        @Test
        void nullsAreRejected() {
            ToolRegistry registry = new ToolRegistry();
            assertThatThrownBy(() -> registry.register(null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> registry.register(null, new FakeTool("x"))).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> registry.addSource(null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> registry.lookup(null, "x")).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> registry.find("local", null)).isInstanceOf(NullPointerException.class);
        }

        @Test
        void aSourceNamedLocalIsAnError() {
            FakeSource source = new FakeSource("local", "x");

            assertThatThrownBy(() -> new ToolRegistry().addSource(source))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("tool source FakeSource(local) uses the server name \"local\", which is reserved for "
                            + "tools registered directly; give the source another name");
            assertThat(source.listed).hasValue(0);
        }

        @Test
        void aSourceWhoseServerNameIsTakenIsAnError() {
            ToolRegistry registry = new ToolRegistry()
                    .register("fs", new FakeTool("read_file"))
                    .addSource(new FakeSource("everything", "echo"));
            FakeSource again = new FakeSource("everything", "other");
            FakeSource onFs = new FakeSource("fs", "other");

            assertThatThrownBy(() -> registry.addSource(again))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("server name \"everything\" is already used by the tool source FakeSource(everything); "
                            + "each source needs its own server name");
            assertThatThrownBy(() -> registry.addSource(onFs))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("server name \"fs\" already has tools registered directly (read_file); "
                            + "give the source another server name");
            assertThat(again.listed).hasValue(0);
            assertThat(names(registry)).containsExactly("fs/read_file", "everything/echo");

            registry.close();
            assertThat(again.closed).as("a rejected source stays the caller's").hasValue(0);
        }

        @Test
        void theSameSourceAddedTwiceIsAnError() {
            FakeSource source = new FakeSource("everything", "echo");
            ToolRegistry registry = new ToolRegistry().addSource(source);

            assertThatThrownBy(() -> registry.addSource(source)).isInstanceOf(IllegalArgumentException.class);
            registry.close();
            assertThat(source.closed).hasValue(1);
        }

        @Test
        void aToolCannotBeRegisteredOnASourcesServer() {
            ToolRegistry registry = new ToolRegistry().addSource(new FakeSource("everything", "echo"));

            assertThatThrownBy(() -> registry.register("everything", new FakeTool("mine")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("server \"everything\" belongs to the tool source FakeSource(everything); "
                            + "register tool \"mine\" under another server name");
        }

        @Test
        void nothingCanBeRegisteredAfterClose() {
            ToolRegistry registry = localAndEverything();
            registry.close();

            assertThatThrownBy(() -> registry.register(new FakeTool("late")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("the tool registry is closed");
            FakeSource late = new FakeSource("late", "x");
            assertThatThrownBy(() -> registry.addSource(late)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> registry.refresh("everything")).isInstanceOf(IllegalStateException.class);
            assertThat(registry.find("local", "read_file")).as("reads still answer").isPresent();
        }
    }

    @Nested
    class UnknownTools {

        @Test
        void anUnknownToolNamesWhatWasAskedAndListsWhatExists() {
            ToolRegistry registry = localAndEverything();

            assertThatThrownBy(() -> registry.lookup("local", "delete_everything"))
                    .isInstanceOf(UnknownToolException.class)
                    .hasMessage("unknown tool \"delete_everything\" on server \"local\"; "
                            + "available: local: read_file, write_file; everything: echo, add");
        }

        @Test
        void aCloseNameIsSuggested() {
            ToolRegistry registry = localAndEverything();

            assertThatThrownBy(() -> registry.lookup("local", "reed_file"))
                    .isInstanceOf(UnknownToolException.class)
                    .hasMessage("unknown tool \"reed_file\" on server \"local\" (did you mean \"read_file\"?); "
                            + "available: local: read_file, write_file; everything: echo, add");
        }

        @Test
        void suggestions() {
            ToolRegistry registry = localAndEverything();

            assertThat(suggestionFor(registry, "local", "raed_file")).as("a swap").isEqualTo("\"read_file\"");
            assertThat(suggestionFor(registry, "local", "READ_FILE")).as("case").isEqualTo("\"read_file\"");
            assertThat(suggestionFor(registry, "local", "read-file")).isEqualTo("\"read_file\"");
            assertThat(suggestionFor(registry, "local", "writefile")).isEqualTo("\"write_file\"");
            assertThat(suggestionFor(registry, "local", "echo"))
                    .as("the right name on the wrong server").isEqualTo("\"echo\" on server \"everything\"");
            assertThat(suggestionFor(registry, "local", "ecko"))
                    .as("a close name on another server").isEqualTo("\"echo\" on server \"everything\"");
            assertThat(suggestionFor(registry, "everything", "addd")).isEqualTo("\"add\"");
            assertThat(suggestionFor(registry, "local", "list_directory")).as("nothing close").isNull();
            assertThat(suggestionFor(registry, "local", "x")).as("one letter is close to nothing here").isNull();
        }

        @Test
        void anUnknownServerIsNamedWithTheToolAndServersAreListed() {
            ToolRegistry registry = localAndEverything();

            assertThatThrownBy(() -> registry.lookup("filesystem", "list_directory"))
                    .isInstanceOf(UnknownToolException.class)
                    .hasMessage("unknown server \"filesystem\" for tool \"list_directory\"; "
                            + "available: local: read_file, write_file; everything: echo, add");
        }

        @Test
        void anUnknownServerSuggestsWhereTheToolIs() {
            ToolRegistry registry = localAndEverything();

            assertThatThrownBy(() -> registry.lookup("evrything", "echo"))
                    .isInstanceOf(UnknownToolException.class)
                    .hasMessage("unknown server \"evrything\" for tool \"echo\" (did you mean \"echo\" on server "
                            + "\"everything\"?); available: local: read_file, write_file; everything: echo, add");
            assertThat(suggestionFor(registry, "mcp", "read_file")).isEqualTo("\"read_file\" on server \"local\"");
            assertThat(suggestionFor(registry, "evrything", "frobnicate")).isEqualTo("server \"everything\"");
        }

        @Test
        void theExceptionCarriesTheCallAndEveryToolForPrograms() {
            ToolRegistry registry = localAndEverything();

            UnknownToolException e = catchUnknown(registry, "local", "nope");
            assertThat(e.serverName()).isEqualTo("local");
            assertThat(e.toolName()).isEqualTo("nope");
            assertThat(e.available()).containsExactly(
                    Map.entry("local", List.of("read_file", "write_file")),
                    Map.entry("everything", List.of("echo", "add")));
        }

        @Test
        void manyToolsAreCappedPerServer() {
            ToolRegistry registry = new ToolRegistry().register(new FakeTool("only"));
            IntStream.range(0, 25).forEach(i -> registry.register("big", new FakeTool(String.format("tool_%02d", i))));

            UnknownToolException e = catchUnknown(registry, "big", "nothing_like_it");
            String first20 = String.join(", ", IntStream.range(0, 20).mapToObj(i -> String.format("tool_%02d", i)).toList());
            assertThat(e).hasMessage("unknown tool \"nothing_like_it\" on server \"big\"; available: local: only; big: "
                    + first20 + ", and 5 more");
            assertThat(e.available().get("big")).hasSize(25);
        }

        @Test
        void aSuggestionMayNameAToolBeyondTheCap() {
            ToolRegistry registry = new ToolRegistry();
            IntStream.range(0, 25).forEach(i -> registry.register(new FakeTool(String.format("tool_%02d", i))));
            registry.register(new FakeTool("search_web"));

            assertThat(catchUnknown(registry, "local", "serch_web").getMessage())
                    .startsWith("unknown tool \"serch_web\" on server \"local\" (did you mean \"search_web\"?)")
                    .endsWith(", and 6 more");
        }

        @Test
        void anEmptyRegistrySaysSo() {
            assertThatThrownBy(() -> new ToolRegistry().lookup("local", "anything"))
                    .isInstanceOf(UnknownToolException.class)
                    .hasMessage("unknown server \"local\" for tool \"anything\"; no tools are available");
        }

        @Test
        void findIsEmptyWhereLookupThrows() {
            ToolRegistry registry = localAndEverything();

            assertThat(registry.find("local", "nope")).isEmpty();
            assertThat(registry.find("nowhere", "echo")).isEmpty();
            assertThat(registry.find("everything", "echo")).isPresent();
        }

        private static UnknownToolException catchUnknown(ToolRegistry registry, String server, String tool) {
            try {
                registry.lookup(server, tool);
            } catch (UnknownToolException e) {
                return e;
            } catch (ToolException e) {
                throw new AssertionError("expected an UnknownToolException", e);
            }
            throw new AssertionError("lookup(" + server + ", " + tool + ") found a tool");
        }

        /** The text between "(did you mean " and "?)", or null when there is none. */
        private static String suggestionFor(ToolRegistry registry, String server, String tool) {
            String message = catchUnknown(registry, server, tool).getMessage();
            int start = message.indexOf("(did you mean ");
            return start < 0 ? null : message.substring(start + "(did you mean ".length(), message.indexOf("?)", start));
        }
    }

    @Nested
    class Sources {

        @Test
        void aSourcesToolsAreListedOnceWhenAdded() throws ToolException {
            FakeSource source = new FakeSource("everything", "echo", "add");
            ToolRegistry registry = new ToolRegistry().addSource(source);

            assertThat(source.listed).hasValue(1);
            registry.lookup("everything", "echo");
            registry.tools();
            registry.lookup("everything", "add");
            assertThat(source.listed).hasValue(1);
            assertThat(registry.sourceFailures()).isEmpty();
        }

        @Test
        void aSourceThatFailsToStartIsReportedAndTheRestWork() throws ToolException {
            FakeSource broken = new FakeSource("broken", "echo").failingToList("npx: command not found");
            ToolRegistry registry = new ToolRegistry()
                    .register(new FakeTool("read_file"))
                    .addSource(broken)
                    .addSource(new FakeSource("everything", "add"));

            assertThat(names(registry)).containsExactly("local/read_file", "everything/add");
            assertThat(registry.serverNames()).containsExactly("local", "broken", "everything");
            assertThat(registry.sourceFailures()).singleElement().satisfies(f -> {
                assertThat(f.serverName()).isEqualTo("broken");
                assertThat(f.reason()).isEqualTo("npx: command not found");
                assertThat(f.cause()).isSameAs(broken.listFailure);
                assertThat(f).hasToString("server \"broken\" is unavailable: npx: command not found");
            });
            assertThat(registry.lookup("everything", "add").name()).isEqualTo("add");
            assertThat(registry.lookup("local", "read_file").name()).isEqualTo("read_file");
            assertThat(registry.find("broken", "echo")).isEmpty();
        }

        @Test
        void aToolOfAnUnavailableServerAnswersWithWhy() {
            FakeSource broken = new FakeSource("broken", "echo").failingToList("npx: command not found");
            ToolRegistry registry = new ToolRegistry().register(new FakeTool("read_file")).addSource(broken);

            assertThatThrownBy(() -> registry.lookup("broken", "echo"))
                    .isExactlyInstanceOf(ToolException.class)
                    .hasMessage("tool \"echo\" cannot be called: server \"broken\" is unavailable: npx: command not found")
                    .hasCause(broken.listFailure);
        }

        @Test
        void unavailableServersAreNamedInTheUnknownToolMessage() {
            ToolRegistry registry = new ToolRegistry()
                    .register(new FakeTool("read_file"))
                    .addSource(new FakeSource("broken", "echo").failingToList("gone"));

            assertThatThrownBy(() -> registry.lookup("local", "echo"))
                    .isInstanceOf(UnknownToolException.class)
                    .hasMessage("unknown tool \"echo\" on server \"local\"; available: local: read_file; "
                            + "unavailable servers: broken");
        }

        @Test
        void aSourceThatThrowsAnUncheckedExceptionIsUnavailableToo() {
            ToolSource source = new ToolSource() {
                @Override
                public String serverName() {
                    return "flaky";
                }

                @Override
                public List<Tool> tools() {
                    throw new IllegalStateException("connection refused");
                }
            };
            ToolRegistry registry = new ToolRegistry().addSource(source);

            assertThat(registry.sourceFailures()).singleElement()
                    .extracting(SourceFailure::reason).isEqualTo("IllegalStateException: connection refused");
        }

        @Test
        void aSourceListingUnusableToolsIsUnavailable() {
            FakeSource twice = new FakeSource("twice", "echo", "add", "echo");
            FakeSource blank = new FakeSource("blank", "echo", "");
            FakeSource nulls = new FakeSource("nulls");
            nulls.tools = Collections.singletonList(null);
            FakeSource none = new FakeSource("none");
            none.tools = null;
            ToolRegistry registry = new ToolRegistry().addSource(twice).addSource(blank).addSource(nulls).addSource(none);

            assertThat(registry.sourceFailures()).extracting(SourceFailure::toString).containsExactly(
                    "server \"twice\" is unavailable: it listed the tool \"echo\" twice",
                    "server \"blank\" is unavailable: it listed an unusable tool: a tool on server \"blank\" has a "
                            + "blank name; every tool needs a name the model can call it by",
                    "server \"nulls\" is unavailable: it listed a null tool",
                    "server \"none\" is unavailable: it listed no tools (tools() returned null)");
            assertThat(registry.tools()).isEmpty();
        }

        @Test
        void aSourceWithNoToolsIsAvailableAndEmpty() {
            ToolRegistry registry = new ToolRegistry().addSource(new FakeSource("quiet"));

            assertThat(registry.sourceFailures()).isEmpty();
            assertThat(registry).hasToString("ToolRegistry[quiet: 0 tools]");
            assertThatThrownBy(() -> registry.lookup("quiet", "x"))
                    .hasMessage("unknown tool \"x\" on server \"quiet\"; available: quiet: no tools");
        }

        @Test
        void aSourceThatDiesLaterIsMarkedUnavailableByRefresh() throws ToolException {
            FakeSource source = new FakeSource("everything", "echo", "add");
            ToolRegistry registry = new ToolRegistry().register(new FakeTool("read_file")).addSource(source);

            source.failingToList("the server exited with status 1");
            assertThat(registry.refresh("everything")).hasValueSatisfying(
                    f -> assertThat(f.reason()).isEqualTo("the server exited with status 1"));

            assertThat(names(registry)).containsExactly("local/read_file");
            assertThat(registry.serverNames()).containsExactly("local", "everything");
            assertThatThrownBy(() -> registry.lookup("everything", "echo"))
                    .hasMessage("tool \"echo\" cannot be called: server \"everything\" is unavailable: "
                            + "the server exited with status 1");

            source.listFailure = null;
            source.tools = FakeSource.tools("echo", "add", "sum");
            assertThat(registry.refresh("everything")).isEmpty();
            assertThat(registry.sourceFailures()).isEmpty();
            assertThat(registry.lookup("everything", "sum").name()).isEqualTo("sum");
            assertThat(registry.serverNames()).as("the server keeps its place").containsExactly("local", "everything");
        }

        @Test
        void aSourceThatFailedToStartCanComeBack() throws ToolException {
            FakeSource source = new FakeSource("everything", "echo").failingToList("not yet");
            ToolRegistry registry = new ToolRegistry().addSource(source);
            source.listFailure = null;

            assertThat(registry.refresh("everything")).isEmpty();
            assertThat(registry.lookup("everything", "echo").name()).isEqualTo("echo");
        }

        @Test
        void onlySourcesCanBeRefreshed() {
            ToolRegistry registry = localAndEverything();

            assertThatThrownBy(() -> registry.refresh("local"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("server \"local\" holds tools registered directly, not a tool source; there is nothing to refresh");
            assertThatThrownBy(() -> registry.refresh("nowhere"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("no server named \"nowhere\"; servers: local, everything");
        }
    }

    @Nested
    class Closing {

        @Test
        void closeClosesEverySourceOnceEvenUnavailableOnes() {
            FakeSource a = new FakeSource("a", "x");
            FakeSource broken = new FakeSource("broken", "y").failingToList("failed to start");
            ToolRegistry registry = new ToolRegistry().register(new FakeTool("t")).addSource(a).addSource(broken);

            registry.close();
            registry.close();

            assertThat(a.closed).hasValue(1);
            assertThat(broken.closed).hasValue(1);
        }

        @Test
        void closeGoesOnPastFailuresAndReportsThemAll() {
            FakeSource first = new FakeSource("first", "x").failingToClose("pipe broken");
            FakeSource ok = new FakeSource("ok", "y");
            FakeSource last = new FakeSource("last", "z").failingToClose("process would not stop");
            ToolRegistry registry = new ToolRegistry().addSource(first).addSource(ok).addSource(last);

            assertThatThrownBy(registry::close)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("could not close 2 tool sources: server \"last\" (IllegalStateException: process "
                            + "would not stop), server \"first\" (IllegalStateException: pipe broken)")
                    .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(last.closeFailure, first.closeFailure));
            assertThat(first.closed).hasValue(1);
            assertThat(ok.closed).hasValue(1);
            assertThat(last.closed).hasValue(1);
            assertThatCode(registry::close).as("closing twice is harmless").doesNotThrowAnyException();
            assertThat(first.closed).hasValue(1);
        }

        @Test
        void oneFailureIsReportedInTheSingular() {
            ToolRegistry registry = new ToolRegistry().addSource(new FakeSource("only", "x").failingToClose("stuck"));

            assertThatThrownBy(registry::close)
                    .hasMessage("could not close a tool source: server \"only\" (IllegalStateException: stuck)");
        }

        @Test
        void tryWithResourcesClosesSources() {
            FakeSource source = new FakeSource("everything", "echo");
            try (ToolRegistry registry = new ToolRegistry().addSource(source)) {
                assertThat(registry.tools()).hasSize(1);
            }
            assertThat(source.closed).hasValue(1);
        }
    }

    @Test
    void toStringListsServersAndToolCounts() {
        ToolRegistry registry = localAndEverything()
                .register("one", new FakeTool("single"))
                .addSource(new FakeSource("broken", "x").failingToList("no"));

        assertThat(registry).hasToString("ToolRegistry[local: 2 tools, everything: 2 tools, one: 1 tool, broken: unavailable]");
        assertThat(new ToolRegistry()).hasToString("ToolRegistry[]");
    }

    @Test
    void returnedListsAreSnapshotsThatCannotBeChanged() {
        ToolRegistry registry = localAndEverything();
        List<RegisteredTool> before = registry.tools();
        List<String> servers = registry.serverNames();

        registry.register(new FakeTool("later"));

        assertThat(before).hasSize(4);
        assertThat(servers).containsExactly("local", "everything");
        assertThatThrownBy(() -> before.add(new RegisteredTool("x", new FakeTool("y"))))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Nested
    class Threads {

        @Test
        void manyThreadsLookUpAtOnce() throws Exception {
            ToolRegistry registry = new ToolRegistry();
            IntStream.range(0, 50).forEach(i -> registry.register(new FakeTool("tool_" + i)));
            registry.addSource(new FakeSource("everything", "echo", "add"));
            int threads = 8;
            CountDownLatch start = new CountDownLatch(1);
            try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
                List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int seed = t;
                    results.add(pool.submit(() -> {
                        start.await();
                        int found = 0;
                        for (int i = 0; i < 2_000; i++) {
                            String name = "tool_" + ((i + seed) % 50);
                            if (registry.lookup("local", name).name().equals(name)) {
                                found++;
                            }
                            if (registry.find("everything", "echo").isPresent()) {
                                found++;
                            }
                            try {
                                registry.lookup("local", "missing");
                            } catch (UnknownToolException expected) {
                                found++;
                            }
                        }
                        return found;
                    }));
                }
                start.countDown();
                for (Future<Integer> result : results) {
                    assertThat(result.get()).isEqualTo(6_000);
                }
            }
        }

        @Test
        void readersSeeWholeSnapshotsWhileSomeoneRegisters() throws Exception {
            ToolRegistry registry = new ToolRegistry().register(new FakeTool("stable"));
            CountDownLatch start = new CountDownLatch(1);
            try (ExecutorService pool = Executors.newFixedThreadPool(5)) {
                Callable<Void> reader = () -> {
                    start.await();
                    for (int i = 0; i < 2_000; i++) {
                        assertThat(registry.lookup("local", "stable").name()).isEqualTo("stable");
                        List<RegisteredTool> tools = registry.tools();
                        assertThat(tools.getFirst().toolName()).isEqualTo("stable");
                        // tools of server "s" arrive in order: a snapshot never has a gap
                        List<String> added = tools.stream().filter(t -> t.serverName().equals("s"))
                                .map(RegisteredTool::toolName).toList();
                        for (int k = 0; k < added.size(); k++) {
                            assertThat(added.get(k)).isEqualTo("t" + k);
                        }
                    }
                    return null;
                };
                List<Future<Void>> readers = new ArrayList<>();
                for (int r = 0; r < 4; r++) {
                    readers.add(pool.submit(reader));
                }
                Future<Void> writer = pool.submit(() -> {
                    start.await();
                    for (int k = 0; k < 300; k++) {
                        registry.register("s", new FakeTool("t" + k));
                    }
                    return null;
                });
                start.countDown();
                writer.get();
                for (Future<Void> r : readers) {
                    r.get();
                }
            }
            assertThat(registry.tools()).hasSize(301);
        }

        @Test
        void sourcesMayBeAddedFromSeveralThreads() throws Exception {
            ToolRegistry registry = new ToolRegistry();
            try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
                List<Future<?>> adds = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    FakeSource source = new FakeSource("server" + i, "echo");
                    adds.add(pool.submit(() -> registry.addSource(source)));
                }
                for (Future<?> add : adds) {
                    add.get();
                }
            }
            assertThat(registry.serverNames()).hasSize(20);
            assertThat(registry.tools()).hasSize(20);
        }
    }
}
