package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every Java snippet of the project's Markdown (README.md, docs/, the modules' own pages)
 * compiles against the real modules, so that what a reader copies works; the program of a page
 * listed in {@code RUN} (docs/agents.md) is also run, and prints what its comments say.
 *
 * <p>A page is read as its reader reads it: its {@code java} snippets, in order, form one
 * program, so a later snippet may use what an earlier one declared, and every variable a
 * snippet uses must be declared somewhere above it on the same page. The imports of all
 * snippets go to the top; everything else becomes the body of one method (records, enums and
 * classes declared in a snippet become local types there). A snippet preceded by the line
 * {@code <!-- snippet: standalone -->} is compiled on its own, as a complete file when it
 * declares a package, else wrapped the same way. One preceded by
 * {@code <!-- snippet: not compiled -->} is skipped: for code of another library (a
 * LangChain4j class shown side by side) or of a project outside this build, which the
 * {@code examples/} project compiles instead.
 */
class DocumentationSnippetsTest {

    private static final Pattern FENCE = Pattern.compile("(?m)^```java[ \\t]*\\n(.*?)^```[ \\t]*$", Pattern.DOTALL);
    private static final String STANDALONE = "<!-- snippet: standalone -->";
    private static final String NOT_COMPILED = "<!-- snippet: not compiled -->";

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetCompiles() throws IOException {
        Path root = repositoryRoot();
        Modules modules = Modules.of(root);
        List<DynamicTest> tests = new ArrayList<>();
        for (Path page : markdownPages(root)) {
            List<Program> programs = programs(Files.readString(page, StandardCharsets.UTF_8));
            for (int i = 0; i < programs.size(); i++) {
                Program program = programs.get(i);
                String name = root.relativize(page) + (programs.size() > 1 ? " #" + (i + 1) : "")
                        + " (line " + program.firstLine + ")";
                boolean run = RUN.contains(root.relativize(page).toString().replace('\\', '/'));
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    assertThat(modules.notApi(program.source()))
                            .as("Bellows packages the snippets use that no module exports to everyone (the test"
                                    + " compiles on the class path, where a module's other packages are reachable too;"
                                    + " an application on the module path could not use them)")
                            .isEmpty();
                    Path classes = compiled(program);
                    if (run) {
                        assertPrintsWhatItSays(program, classes);
                    }
                }));
            }
        }
        assertThat(tests).as("Java snippets found in the Markdown pages").isNotEmpty();
        return tests.stream();
    }

    /**
     * Which of Bellows' packages are API: those a module-info exports to everyone, and the
     * packages not {@code .internal} of a library without one (bellows-temporal, the Spring Boot
     * starter: automatic modules). The applications' packages (the CLI, the benchmarks) are not.
     */
    record Modules(Set<String> api, Set<String> all) {

        private static final Set<String> APPLICATIONS = Set.of("bellows-cli", "bellows-bench");
        private static final Pattern EXPORTS = Pattern.compile("\\bexports\\s+([\\w.]+)\\s*;");
        private static final Pattern COMMENT = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);
        private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.bellows(?:\\.[a-z_][\\w]*)+");

        static Modules of(Path root) throws IOException {
            Set<String> api = new TreeSet<>();
            Set<String> all = new TreeSet<>();
            try (Stream<Path> modules = Files.list(root)) {
                for (Path module : modules.filter(m -> m.getFileName().toString().startsWith("bellows-")).sorted().toList()) {
                    Path sources = module.resolve("src/main/java");
                    if (!Files.isDirectory(sources)) {
                        continue;
                    }
                    Set<String> packages = packages(sources);
                    all.addAll(packages);
                    Path moduleInfo = sources.resolve("module-info.java");
                    if (Files.exists(moduleInfo)) {
                        Matcher export = EXPORTS.matcher(COMMENT.matcher(Files.readString(moduleInfo)).replaceAll(""));
                        while (export.find()) {
                            api.add(export.group(1));
                        }
                    } else if (!APPLICATIONS.contains(module.getFileName().toString())) {
                        packages.stream().filter(p -> !(p + ".").contains(".internal.")).forEach(api::add);
                    }
                }
            }
            return new Modules(api, all);
        }

        private static Set<String> packages(Path sources) throws IOException {
            try (Stream<Path> files = Files.walk(sources)) {
                Set<String> packages = new TreeSet<>();
                files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("module-info.java"))
                        .forEach(f -> packages.add(sources.relativize(f.getParent()).toString().replace('/', '.')
                                .replace('\\', '.')));
                return packages;
            }
        }

        /** The Bellows packages {@code source} names (imports, qualified names) that are not API. */
        Set<String> notApi(String source) {
            Set<String> found = new TreeSet<>();
            Matcher reference = REFERENCE.matcher(source);
            while (reference.find()) {
                String name = reference.group();
                // the longest prefix that is a package of Bellows ("dev.bellows.agent.internal.x" is in ...internal)
                for (String pkg = name; pkg.contains("."); pkg = pkg.substring(0, pkg.lastIndexOf('.'))) {
                    if (all.contains(pkg)) {
                        if (!api.contains(pkg)) {
                            found.add(pkg);
                        }
                        break;
                    }
                }
            }
            return found;
        }
    }

    @Test
    void aSnippetThatUsesAPackageNoModuleExportsIsFound() throws IOException {
        Modules modules = Modules.of(repositoryRoot());
        String snippet = """
                import dev.bellows.agent.*;
                import dev.bellows.json.internal.Jackson;
                import dev.bellows.tool.annotation.Tool;
                import dev.bellows.temporal.DurableAgent;
                var tree = Jackson.JSON.createObjectNode();
                var trail = dev.bellows.agent.internal.SubAgentTrail.class;
                var cli = dev.bellows.cli.BellowsCommand.class;
                """;

        assertThat(modules.notApi(programs("```java\n" + snippet + "```\n").getFirst().source()))
                .containsExactly("dev.bellows.agent.internal", "dev.bellows.cli", "dev.bellows.json.internal");
        assertThat(modules.api()).contains("dev.bellows.agent", "dev.bellows.temporal", "dev.bellows.testkit")
                .doesNotContain("dev.bellows.temporal.internal", "dev.bellows.http.internal");
    }

    /** The page's snippets grouped into what is compiled together. */
    static List<Program> programs(String markdown) {
        List<Program> programs = new ArrayList<>();
        Program cumulative = null;
        Matcher fence = FENCE.matcher(markdown);
        while (fence.find()) {
            String before = markdown.substring(0, fence.start()).stripTrailing();
            String marker = before.substring(before.lastIndexOf('\n') + 1).strip();
            int line = (int) markdown.substring(0, fence.start()).chars().filter(c -> c == '\n').count() + 1;
            if (marker.equals(NOT_COMPILED)) {
                continue;
            }
            if (marker.equals(STANDALONE)) {
                programs.add(new Program(line).add(fence.group(1)));
            } else {
                if (cumulative == null) {
                    cumulative = new Program(line);
                    programs.add(cumulative);
                }
                cumulative.add(fence.group(1));
            }
        }
        return programs;
    }

    /** The pages whose program is also run: each of its printing lines that ends in a comment prints that. */
    private static final Set<String> RUN = Set.of("docs/agents.md");
    private static final Pattern SAYS = Pattern.compile("System\\.out\\.println\\(.*\\);\\s*// (.*)$");

    /**
     * Runs the compiled program: every {@code System.out.println(...)} whose line ends in a
     * comment prints what the comment says, in order.
     */
    private static void assertPrintsWhatItSays(Program program, Path classes) throws Exception {
        List<String> expected = new ArrayList<>();
        for (String line : program.source().split("\n")) {
            Matcher says = SAYS.matcher(line.strip());
            if (says.find()) {
                expected.add(says.group(1).strip());
            }
        }
        assertThat(expected).as("the page's printed lines").isNotEmpty();
        java.io.PrintStream original = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {classes.toUri().toURL()},
                DocumentationSnippetsTest.class.getClassLoader())) {
            java.lang.reflect.Method snippets = loader.loadClass(program.className()).getDeclaredMethod("snippets");
            snippets.setAccessible(true);
            System.setOut(new java.io.PrintStream(printed, true, StandardCharsets.UTF_8));
            snippets.invoke(null);
        } finally {
            System.setOut(original);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8).lines().map(String::strip).toList())
                .containsSubsequence(expected);
    }

    /** Compiles {@code program} (failing the test when it does not) into a new folder, which it returns. */
    private static Path compiled(Program program) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler).as("a JDK's compiler (the build runs on a JDK)").isNotNull();
        Path out = Files.createTempDirectory("snippets");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        String source = program.source();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + program.className() + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return source;
                }
            };
            StringWriter output = new StringWriter();
            boolean compiled = compiler.getTask(output, files, diagnostics,
                    List.of("-d", out.toString(), "-classpath", System.getProperty("java.class.path"),
                            "--release", "21", "-proc:none", "-Xlint:none"),
                    null, List.of(file)).call();
            StringBuilder errors = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                    errors.append("line ").append(diagnostic.getLineNumber()).append(": ")
                            .append(diagnostic.getMessage(Locale.ROOT)).append('\n');
                }
            }
            assertThat(compiled).as("the snippets compile:%n%s%nas this program:%n%s", errors, numbered(source)).isTrue();
        }
        return out;
    }

    private static String numbered(String source) {
        String[] lines = source.split("\n", -1);
        StringBuilder numbered = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            numbered.append(String.format(Locale.ROOT, "%4d  %s%n", i + 1, lines[i]));
        }
        return numbered.toString();
    }

    private static List<Path> markdownPages(Path root) throws IOException {
        return MarkdownPages.under(root);
    }

    private static Path repositoryRoot() {
        Path directory = Path.of("").toAbsolutePath();
        while (directory != null && !Files.exists(directory.resolve("mvnw"))) {
            directory = directory.getParent();
        }
        assertThat(directory).as("the repository root (where mvnw is) above the working directory").isNotNull();
        return directory;
    }

    /** Snippets compiled together: imports hoisted, the rest one method body or one file. */
    static final class Program {
        private static final Pattern IMPORT = Pattern.compile("^import\\s+[\\w.*]+\\s*;\\s*$");
        private static int counter;

        final int firstLine;
        private final Set<String> imports = new LinkedHashSet<>();
        private final StringBuilder body = new StringBuilder();
        private boolean wholeFile;
        private final String className = "Snippet" + ++counter;

        Program(int firstLine) {
            this.firstLine = firstLine;
        }

        Program add(String snippet) {
            if (snippet.lines().anyMatch(line -> line.startsWith("package "))) {
                wholeFile = true;
                body.append(snippet);
                return this;
            }
            for (String line : snippet.split("\n", -1)) {
                if (IMPORT.matcher(line.strip()).matches()) {
                    imports.add(line.strip());
                } else {
                    body.append(line).append('\n');
                }
            }
            return this;
        }

        String className() {
            if (wholeFile) {
                Matcher type = Pattern.compile("public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)")
                        .matcher(body);
                return type.find() ? type.group(1) : className;
            }
            return className;
        }

        String source() {
            if (wholeFile) {
                return body.toString();
            }
            return String.join("\n", imports) + "\n\nclass " + className + " {\n"
                    + "    @SuppressWarnings(\"unused\")\n"
                    + "    static void snippets() throws Exception {\n" + body + "    }\n}\n";
        }
    }
}
