package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bellows run on the module path, as an application that is a module of its own runs it: the
 * tests run on the class path (DEVELOPERS.md, "Modules"), where a missing {@code opens} or
 * {@code exports} never shows. A small module ({@code demo.weather}: a typed tool whose arguments
 * are a record, a typed result, a typed final answer, every event written as JSON) is compiled
 * against the built modules and run in a JVM of its own with {@code --module-path}, against the
 * mock model over HTTP on 127.0.0.1. The module path holds the modules the application requires
 * and what they require in turn, as Maven puts them; the other jars stay on the class path,
 * which automatic modules read. docs/modules.md, "Running on the module path", says the same.
 */
class ModulePathRunTest {

    private static final String MODULE_INFO = """
            module demo.weather {
                requires dev.bellows.core;
                requires dev.bellows.openai;
                // Jackson reads the tool's arguments and the answer into these records and writes the results.
                opens demo.weather to tools.jackson.databind;
            }
            """;

    private static final String MAIN = """
            package demo.weather;

            import dev.bellows.agent.DefaultAgent;
            import dev.bellows.event.EventJson;
            import dev.bellows.openai.OpenAiProvider;
            import dev.bellows.tool.ToolRegistry;
            import dev.bellows.tool.ToolResult;
            import dev.bellows.tool.TypedTool;

            public final class Main {
                record Query(String city, int days) { }
                record Forecast(String city, int days, double celsius) { }
                record Answer(String city, double celsius, boolean warm) { }

                public static void main(String[] args) {
                    ToolRegistry tools = new ToolRegistry().register(TypedTool.of("get_weather", "Weather for a city",
                            Query.class, (context, query) ->
                                    ToolResult.of(new Forecast(query.city(), query.days(), 18.5 + query.days()))));
                    DefaultAgent agent = DefaultAgent.builder()
                            .provider(OpenAiProvider.builder().baseUrl(args[0]).build())
                            .model("mock")
                            .toolRegistry(tools)
                            .listener(event -> System.out.println("event " + EventJson.toJson(event)))
                            .build();
                    Answer answer = agent.run("Will it be warm in Oslo in three days?", Answer.class).answer();
                    System.out.println("answer " + answer);
                    System.out.println("modules " + Main.class.getModule().getName() + " "
                            + DefaultAgent.class.getModule().getName() + " "
                            + tools.jackson.databind.JsonNode.class.getModule().getName());
                }
            }
            """;

    private static final MockScript SCRIPT = MockScript.of(
            MockTurn.content("<tool>{\"tool_name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": \"3\"}}</tool>"),
            MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\":"
                    + " {\"city\": \"Oslo\", \"celsius\": 21.5, \"warm\": true}}}</tool>"));

    @Test
    void anAgentWithTypedToolsAndAnswerRunsOnTheModulePath(@TempDir Path dir) throws Exception {
        Map<String, Path> modules = requiredModules(Set.of("dev.bellows.core", "dev.bellows.openai"));
        assertThat(modules).as("Bellows' own modules are named modules, not automatic ones")
                .containsKeys("dev.bellows.core", "dev.bellows.openai", "dev.bellows.http", "tools.jackson.databind");
        List<String> classPath = classPath().stream()
                .filter(entry -> !modules.containsValue(Path.of(entry))).toList();

        Path source = dir.resolve("src/demo.weather");
        Files.createDirectories(source.resolve("demo/weather"));
        Files.writeString(source.resolve("module-info.java"), MODULE_INFO);
        Files.writeString(source.resolve("demo/weather/Main.java"), MAIN);
        Path classes = dir.resolve("classes");
        String modulePath = join(modules.values().stream().map(Path::toString).toList());
        compile(modulePath, classes, source.resolve("module-info.java"), source.resolve("demo/weather/Main.java"));

        try (MockLlmServer model = MockLlmServer.start(SCRIPT)) {
            List<String> command = new ArrayList<>(List.of(javaExecutable(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                    "--module-path", classes + File.pathSeparator + modulePath,
                    "--class-path", join(classPath),
                    "-m", "demo.weather/demo.weather.Main", model.baseUrl().toString()));
            Path output = dir.resolve("output.txt");
            Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("the child JVM ends").isTrue();
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(child.exitValue()).as("exit status; it printed:%n%s", printed).isZero();
            assertThat(printed)
                    .contains("answer Answer[city=Oslo, celsius=21.5, warm=true]")
                    .contains("modules demo.weather dev.bellows.core tools.jackson.databind")
                    // the string "3" coerced to the record's int, the typed result written back as JSON
                    .contains("\"result\":\"{\\\"city\\\":\\\"Oslo\\\",\\\"days\\\":3,\\\"celsius\\\":21.5}\"")
                    .contains("\"type\":\"loop_end\"");
            assertThat(model.requests()).hasSize(2);
        }
    }

    /** The class path entries of the named modules in {@code roots}' closure (their requires, not the static ones). */
    private static Map<String, Path> requiredModules(Set<String> roots) {
        Map<String, Path> found = new LinkedHashMap<>();
        Map<String, ModuleDescriptor> descriptors = new LinkedHashMap<>();
        for (String entry : classPath()) {
            Path path = Path.of(entry);
            try {
                for (ModuleReference module : ModuleFinder.of(path).findAll()) {
                    found.putIfAbsent(module.descriptor().name(), path);
                    descriptors.putIfAbsent(module.descriptor().name(), module.descriptor());
                }
            } catch (FindException notAModule) {
                // a jar whose file name gives no module name stays on the class path
            }
        }
        Map<String, Path> closure = new LinkedHashMap<>();
        Deque<String> pending = new ArrayDeque<>(roots);
        while (!pending.isEmpty()) {
            String name = pending.pop();
            if (closure.containsKey(name) || !found.containsKey(name)) {
                continue;       // a JDK module, or one seen already
            }
            closure.put(name, found.get(name));
            for (ModuleDescriptor.Requires requires : descriptors.get(name).requires()) {
                if (!requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
                    pending.push(requires.name());
                }
            }
        }
        return closure;
    }

    private static void compile(String modulePath, Path classes, Path... sources) {
        java.util.spi.ToolProvider javac = java.util.spi.ToolProvider.findFirst("javac").orElseThrow();
        StringWriter errors = new StringWriter();
        List<String> arguments = new ArrayList<>(List.of("--release", "21", "-proc:none", "-d", classes.toString(),
                "--module-path", modulePath));
        for (Path source : sources) {
            arguments.add(source.toString());
        }
        int status;
        try (PrintWriter out = new PrintWriter(errors)) {
            status = javac.run(out, out, arguments.toArray(String[]::new));
        }
        assertThat(status).as("the module compiles:%n%s", errors).isZero();
    }

    private static List<String> classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isBlank() && Files.exists(Path.of(entry))) {
                entries.add(entry);
            }
        }
        return List.copyOf(entries);
    }

    private static String join(List<String> entries) {
        return String.join(File.pathSeparator, entries);
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java" + (System.getProperty("os.name")
                .toLowerCase(Locale.ROOT).startsWith("windows") ? ".exe" : "")).toString();
    }
}
