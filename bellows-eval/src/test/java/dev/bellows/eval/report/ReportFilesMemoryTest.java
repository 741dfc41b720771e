package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.eval.AgentFactory;
import dev.bellows.eval.Dataset;
import dev.bellows.eval.EvalReport;
import dev.bellows.eval.EvalRunner;
import dev.bellows.eval.ReportJson;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.annotation.Tool;
import dev.bellows.tool.annotation.ToolParam;
import java.io.StringWriter;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's parts held in memory up to a budget, then in hidden part files: the files are,
 * byte for byte, those the whole report gives, whether every part stayed in memory, went to a
 * file from its first byte, or went there half-way through the runs; and no part file is left
 * behind.
 */
class ReportFilesMemoryTest {

    public static final class WeatherTools {
        @Tool(description = "The weather in a city")
        public String get_weather(@ToolParam(description = "the city") String city) {
            return city + ": 5 \u00b0C, cloudy";
        }
    }

    private static String call(String tool, String argument, String value) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": {\"" + argument + "\": \"" + value + "\"}}</tool>";
    }

    @TempDir
    Path dir;

    private static final List<String> FILES = List.of("report.json", EvalReports.JUNIT_XML, EvalReports.HTML, "events.jsonl");

    private Dataset dataset() throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int c = 1; c <= 30; c++) {
            lines.append("{\"id\": \"case-").append(c).append("\", \"input\": \"Weather in city ").append(c)
                    .append("?\", \"expect\": {\"contains\": \"city ").append(c).append("\"}").append(c % 7 == 0 ? ", \"repeat\": 2" : "")
                    .append("}\n");
        }
        return Dataset.read(Files.writeString(dir.resolve("cases.jsonl"), lines.toString()));
    }

    private static final AgentFactory AGENTS = (evalCase, probe) -> {
        String city = evalCase.task().replace("Weather in ", "").replace("?", "");
        String answer = evalCase.id().equals("case-4") ? "somewhere else" : city + " is cloudy";
        return probe.install(DefaultAgent.builder().model("mock").toolRegistry(new ToolRegistry().registerMethods(new WeatherTools()))
                .provider(new ScriptedProvider(MockScript.of(MockTurn.content(call("get_weather", "city", city)),
                        MockTurn.content(call("task_completion", "result", answer)))))).build();
    };

    /** Evaluates with the parts held up to {@code memory} bytes; the page's text, once its files are checked against the whole report's. */
    private String evaluate(String name, long memory) throws Exception {
        Path out = dir.resolve(name);
        EvalReport report = EvalRunner.builder(AGENTS).outputDirectory(out).model("mock").concurrency(4)
                .reportFiles((directory, dataset) -> ReportFiles.open(directory, dataset, memory)).build().run(dataset());
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(file -> file.getFileName().toString())).as("no part left").containsExactlyInAnyOrderElementsOf(FILES);
        }
        tools.jackson.databind.JsonNode json = ReportJson.toJson(report);
        assertThat(Files.readString(out.resolve("report.json"))).isEqualTo(ReportJson.text(json));
        StringWriter xml = new StringWriter();
        EvalReports.writeJunitXml(json, xml);
        assertThat(Files.readString(out.resolve(EvalReports.JUNIT_XML))).isEqualTo(xml.toString());
        StringWriter page = new StringWriter();
        EvalReports.writeHtml(json, out, page);
        assertThat(Files.readString(out.resolve(EvalReports.HTML))).isEqualTo(page.toString());
        return page.toString();
    }

    @Test
    void theFilesAreTheWholeReportsWhetherThePartsStayInMemoryOrGoToFiles() throws Exception {
        String page = evaluate("memory", ReportFiles.MEMORY);
        assertThat(page).contains("case-30", "somewhere else", "\"tool_name\":\"get_weather\"");
        evaluate("files", 0);
        evaluate("half", page.length() / 2);        // the page's runs go to a file part-way
    }

    @Test
    void aPartHeldThenSpilledKeepsItsBytesInOrderAndGivesItsRoomBack(@TempDir Path files) throws Exception {
        Part.Budget budget = new Part.Budget(100_000);
        List<Path> created = new ArrayList<>();
        Part.Spill spill = () -> {
            Path file = Files.createFile(files.resolve("part-" + created.size()));
            created.add(file);
            return file;
        };
        Part first = new Part(budget, spill);
        Part second = new Part(budget, spill);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        byte[] piece = new byte[7_001];
        for (int i = 0; i < 13; i++) {      // 91,013 bytes: across the doubling blocks, within the budget
            java.util.Arrays.fill(piece, (byte) ('a' + i));
            first.write(piece);
            expected.write(piece);
        }
        assertThat(first.spilled()).isFalse();
        second.write(new byte[10_000]);      // past what is left: the second part goes to a file
        assertThat(second.spilled()).isTrue();
        first.write(piece);                 // the second's room was never taken: the first still fits
        expected.write(piece);
        assertThat(first.spilled()).isFalse();
        byte[] more = "z".repeat(2_000).getBytes();
        first.write(more);                  // now past it: the first goes to a file, what it held first
        expected.write(more);
        assertThat(first.spilled()).isTrue();
        assertThat(created).hasSize(2);
        Path joined = files.resolve("joined");
        try (FileChannel out = FileChannel.open(joined, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            Channels.newOutputStream(out).write("head ".getBytes());
            first.copyTo(out);
        }
        byte[] whole = Files.readAllBytes(joined);
        assertThat(new String(whole, 0, 5)).isEqualTo("head ");
        assertThat(java.util.Arrays.copyOfRange(whole, 5, whole.length)).isEqualTo(expected.toByteArray());
        assertThat(created.get(1)).doesNotExist();       // the first's file, deleted once copied (created second)
    }

    @Test
    void aPartInMemoryIsCopiedWhole(@TempDir Path files) throws Exception {
        Part part = new Part(new Part.Budget(1 << 22), () -> {
            throw new AssertionError("not spilled");
        });
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < 3_000; i++) {
            byte[] line = ("line " + i + " " + "x".repeat(i % 97) + "\n").getBytes();
            part.write(line);
            expected.write(line);
        }
        Path joined = files.resolve("joined");
        try (FileChannel out = FileChannel.open(joined, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            part.copyTo(out);
        }
        assertThat(Files.readAllBytes(joined)).isEqualTo(expected.toByteArray());
    }
}
