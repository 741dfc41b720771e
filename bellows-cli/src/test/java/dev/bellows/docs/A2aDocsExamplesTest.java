package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.A2aJs;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command-line examples of docs/a2a.md (the blocks marked {@code <!-- example: a2a -->}) run
 * against the test agent they describe (the @a2a-js/sdk server), and print what the page shows.
 */
class A2aDocsExamplesTest {

    private static final String DOCUMENTED_URL = "http://127.0.0.1:41241";
    private static final Pattern BLOCK = Pattern.compile("<!-- example: a2a( with the bellows.json above)? -->\\n```\\n(.*?)```",
            Pattern.DOTALL);
    private static final Pattern HINT = Pattern.compile("--task-id (\\S+) --context-id (\\S+)");

    @TempDir
    Path dir;

    @Test
    void theExamplesPrintWhatThePageShows() throws Exception {
        String page = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/a2a.md"));
        Matcher blocks = BLOCK.matcher(page);
        int commands = 0;
        A2aJs.Server server = A2aJs.shared();
        {
            String taskId = "";
            String contextId = "";
            while (blocks.find()) {
                boolean configured = blocks.group(1) != null;
                if (configured) {   // the page's last jsonc block before the example, in the folder the commands run in
                    int start = page.lastIndexOf("```jsonc\n", blocks.start()) + "```jsonc\n".length();
                    Files.writeString(dir.resolve("bellows.json"), page.substring(start, page.indexOf("```", start))
                            .replace(DOCUMENTED_URL, server.url()));
                }
                List<String> lines = blocks.group(2).lines().toList();
                for (int i = 0; i < lines.size(); i++) {
                    String command = lines.get(i);
                    assertThat(command).startsWith("$ bellows ");
                    StringBuilder expected = new StringBuilder();
                    while (i + 1 < lines.size() && !lines.get(i + 1).startsWith("$ ")) {
                        expected.append(lines.get(++i).replace(DOCUMENTED_URL, server.url())).append('\n');
                    }
                    List<String> args = words(command.substring("$ bellows ".length()).replace(DOCUMENTED_URL, server.url())
                            .replace("TASK_ID", taskId).replace("CONTEXT_ID", contextId));
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    ByteArrayOutputStream err = new ByteArrayOutputStream();
                    int status = (configured
                            ? dev.bellows.cli.CliAccess.commandLine(new ByteArrayInputStream(new byte[0]), out, err, dir)
                            : dev.bellows.cli.CliAccess.commandLine(new ByteArrayInputStream(new byte[0]), out, err))
                            .execute(args.toArray(String[]::new));
                    String stderr = err.toString(StandardCharsets.UTF_8);
                    assertThat(out.toString(StandardCharsets.UTF_8)).as(command + "\n" + stderr).isEqualTo(expected.toString());
                    assertThat(status).as(command).isIn(0, 3);
                    Matcher hint = HINT.matcher(stderr);
                    if (hint.find()) {
                        taskId = hint.group(1);
                        contextId = hint.group(2);
                    }
                    commands++;
                }
            }
        }
        assertThat(commands).as("examples found in docs/a2a.md").isEqualTo(7);
    }

    /** The words of a command line: spaces split, double quotes group. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        Matcher word = Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(line);
        while (word.find()) {
            words.add(word.group(1) != null ? word.group(1) : word.group(2));
        }
        return words;
    }
}
