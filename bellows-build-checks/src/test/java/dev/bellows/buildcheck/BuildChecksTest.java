package dev.bellows.buildcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildChecksTest {

    @TempDir
    Path module;

    /** CYCLIC compiled once for the class. */
    @TempDir
    static Path shared;
    private static Path cyclic;

    private static synchronized Path cyclic() throws Exception {
        if (cyclic == null) {
            cyclic = Compiled.classes(shared, CYCLIC);
        }
        return cyclic;
    }

    /** a -> b -> a (a cycle), c -> c.internal -> c (one unit, no cycle), d -> a (no cycle). */
    private static final Map<String, String> CYCLIC = Map.of(
            "a/A.java", "package a; public class A { public b.B b; }",
            "b/B.java", "package b; public class B { public a.A a; }",
            "c/C.java", "package c; public class C { public c.internal.I i; }",
            "c/internal/I.java", "package c.internal; public class I { public c.C c; }",
            "d/D.java", "package d; public class D { public a.A a; }");

    @Test
    void cyclesAreFoundWithInternalPackagesCountedAsTheirOwner() throws Exception {
        Path classes = cyclic();
        assertThat(PackageCycles.cycles(PackageCycles.graph(classes))).containsExactly(new TreeSet<>(List.of("a", "b")));
        assertThat(PackageCycles.unit("dev.x.internal.y")).isEqualTo("dev.x");
        assertThat(PackageCycles.unit("dev.internals")).isEqualTo("dev.internals");
    }

    @Test
    void aModuleExportsItsApiToEveryoneAndNothingElseButInternalPackages() throws Exception {
        Path good = Compiled.classes(module.resolve("good"), Map.of(
                "module-info.java", "module x.good { exports a; exports a.internal to java.base; }",
                "a/A.java", "package a; public class A { }",
                "a/internal/I.java", "package a.internal; public class I { }",
                "b/internal/J.java", "package b.internal; public class J { }"));
        assertThat(ModuleRules.check("good", good, "required")).isEmpty();
        Path bad = Compiled.classes(module.resolve("bad"), Map.of(
                "module-info.java", "module x.bad { exports a; exports c.internal; exports d to java.base; }",
                "a/A.java", "package a; public class A { }",
                "b/B.java", "package b; public class B { }",
                "c/internal/C.java", "package c.internal; public class C { }",
                "d/D.java", "package d; public class D { }"));
        assertThat(ModuleRules.check("bad", bad, "required")).hasSize(4).anySatisfy(problem ->
                assertThat(problem).contains("bad's package b is neither exported nor .internal"))
                .anySatisfy(problem -> assertThat(problem).contains("exports c.internal to everyone"))
                .anySatisfy(problem -> assertThat(problem).contains("exports d only to [java.base]"))
                .anySatisfy(problem -> assertThat(problem).contains("bad's package d is neither exported nor .internal"));
        Path plain = Compiled.classes(module.resolve("plain"), Map.of("a/A.java", "package a; public class A { }"));
        assertThat(ModuleRules.check("plain", plain, "required")).singleElement().asString()
                .contains("plain is a library without a module-info.java");
        assertThat(ModuleRules.check("plain", plain, "none")).isEmpty();
    }

    @Test
    void aNamedModuleShowsOnlyItsExportedApiAndIsReadWithoutWhatItRequires() throws Exception {
        Path dependency = Compiled.classes(module.resolve("dep"), Map.of(
                "module-info.java", "module x.dep { exports d; }",
                "d/D.java", "package d; public class D { }"));
        Path classes = Compiled.classes(module.resolve("main"), Map.of(
                "module-info.java", "module x.main { requires x.dep; exports a; }",
                "a/A.java", "package a; public class A { public b.B b; public d.D d; }",
                "b/B.java", "package b; public class B { public a.A a; }"), "-p", dependency.toString());
        assertThat(PublicApi.render(classes, Compiled.loader(classes, dependency)))
                .containsExactly("public class a.A", "    public a.A()", "    public b.B b", "    public d.D d");
        assertThat(PackageCycles.cycles(PackageCycles.graph(classes))).containsExactly(new TreeSet<>(List.of("a", "b")));
    }

    @Test
    void aNewCycleFailsNamingItsEdgesAndRecordingDoesNotAcceptIt() throws Exception {
        Path classes = cyclic();
        for (String mode : List.of("check", "record")) {
            assertThatThrownBy(() -> run(mode, classes, false))
                    .hasMessageContaining("m has a new package cycle")
                    .hasMessageContaining("a -> b")
                    .hasMessageContaining("b -> a");
        }
        assertThat(module.resolve("api/package-cycles.txt")).doesNotExist();
    }

    @Test
    void anAcceptedCycleThatShrankMustBeRecordedAndRecordingShrinksTheList() throws Exception {
        Path classes = cyclic();
        Files.createDirectories(module.resolve("api"));
        Files.writeString(module.resolve("api/package-cycles.txt"), "# accepted\na b d\n");
        assertThatThrownBy(() -> run("check", classes, false))
                .hasMessageContaining("fewer than those accepted")
                .hasMessageContaining(BuildChecks.RECORD_COMMAND);
        run("record", classes, false);
        assertThat(BuildChecks.readCycles(module.resolve("api/package-cycles.txt")))
                .containsExactly(new TreeSet<>(List.of("a", "b")));
        run("check", classes, false);
    }

    @Test
    void theApiIsRecordedThenAChangeFailsNamingTheSignatureAndTheCommand() throws Exception {
        Path first = Compiled.classes(module.resolve("v1"), Map.of("a/A.java", "package a; public class A { public void run() { } }"));
        assertThatThrownBy(() -> run("check", first, true)).hasMessageContaining("m has no recorded public API (api/m.api)");
        run("record", first, true);
        assertThat(module.resolve("api/m.api")).hasContent("public class a.A\n    public a.A()\n    public void run()");
        run("check", first, true);

        Path second = Compiled.classes(module.resolve("v2"), Map.of("a/A.java", "package a; public class A { public void run(int times) { } }"));
        assertThatThrownBy(() -> run("check", second, true))
                .hasMessageContaining("- a.A :: public void run()")
                .hasMessageContaining("+ a.A :: public void run(int)")
                .hasMessageContaining(BuildChecks.RECORD_COMMAND);
    }

    @Test
    void aMutableJacksonTreeInTheApiFailsNamingTheSignatureEvenWhenRecording() throws Exception {
        // Stand-ins with Jackson's names (the check reads names, and this module has no Jackson), outside the module.
        Path jackson = Compiled.classes(module.resolve("jackson"), Map.of(
                "tools/jackson/databind/JsonNode.java", "package tools.jackson.databind; public class JsonNode { }",
                "tools/jackson/databind/node/ObjectNode.java",
                "package tools.jackson.databind.node; public class ObjectNode extends tools.jackson.databind.JsonNode { }",
                "com/fasterxml/jackson/databind/node/ArrayNode.java",
                "package com.fasterxml.jackson.databind.node; public class ArrayNode { }"));
        Path classes = Compiled.classes(module.resolve("json"), Map.of(
                "a/Call.java", "package a; public record Call(String name, tools.jackson.databind.node.ObjectNode arguments) {"
                        + " public static java.util.List<com.fasterxml.jackson.databind.node.ArrayNode> all() { return null; }"
                        + " public tools.jackson.databind.JsonNode read() { return null; } }"),
                "-cp", jackson.toString());
        for (String mode : List.of("check", "record")) {
            assertThatThrownBy(() -> run(mode, classes, Compiled.loader(classes, jackson)))
                    .hasMessageContaining("m's public API hands out mutable JSON trees")
                    .hasMessageContaining("public record a.Call(java.lang.String name, tools.jackson.databind.node.ObjectNode arguments)")
                    .hasMessageContaining("a.Call :: public tools.jackson.databind.node.ObjectNode arguments()")
                    .hasMessageContaining("a.Call :: public static java.util.List<com.fasterxml.jackson.databind.node.ArrayNode> all()")
                    .hasMessageNotContaining("read()")
                    .hasMessageContaining("JsonNode instead");
        }
        assertThat(module.resolve("api/m.api")).doesNotExist();
    }

    @Test
    void aMapperMadeOutsideTheSharedOnesIsFoundByItsClassWhateverTheSource() throws Exception {
        // Stand-ins with Jackson's names (the check reads the names a class calls), outside the module.
        Path jackson = Compiled.classes(module.resolve("jackson"), Map.of(
                "tools/jackson/databind/ObjectMapper.java", "package tools.jackson.databind; public class ObjectMapper {"
                        + " public ObjectMapper() { } public ObjectMapper(Object factory) { } }",
                "tools/jackson/databind/json/JsonMapper.java", "package tools.jackson.databind.json;"
                        + " public class JsonMapper extends tools.jackson.databind.ObjectMapper {"
                        + " public static JsonMapper builder() { return new JsonMapper(); } public JsonMapper rebuild() { return this; } }",
                "com/fasterxml/jackson/databind/ObjectMapper.java",
                "package com.fasterxml.jackson.databind; public class ObjectMapper { }"));
        Path classes = Compiled.classes(module.resolve("mappers"), Map.of(
                "dev/bellows/json/internal/Jackson.java", "package dev.bellows.json.internal; public class Jackson {"
                        + " public static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder(); }",
                "a/Reader.java", "package a; class Reader { Object yaml = new tools.jackson.databind.ObjectMapper(\"yaml\"); }",
                "a/Old.java", "package a; class Old { Object json = new com.fasterxml.jackson.databind.ObjectMapper(); }",
                "b/Built.java", "package b; class Built { Object json = tools.jackson.databind.json.JsonMapper.builder(); }",
                "b/Derived.java", "package b; class Derived {"
                        + " Object json = dev.bellows.json.internal.Jackson.JSON.rebuild(); }"),
                "-cp", jackson.toString());

        assertThat(OwnMappers.check("m", classes)).singleElement().asString()
                .startsWith("m makes Jackson mappers of its own:\n"
                        + "  a.Old calls ObjectMapper.<init>\n"
                        + "  a.Reader calls ObjectMapper.<init>\n"
                        + "  b.Built calls JsonMapper.builder\n")
                .contains("dev.bellows.json.internal.Jackson")
                .doesNotContain("Derived");
        assertThat(OwnMappers.check("m", Compiled.classes(module.resolve("none"),
                Map.of("c/C.java", "package c; class C { }")))).isEmpty();
    }

    @Test
    void anApplicationThatUsesAnInternalTypeItsPomDoesNotAllowIsFound() throws Exception {
        Path classes = Compiled.classes(module.resolve("app"), Map.of(
                "dev/bellows/x/internal/Hidden.java", "package dev.bellows.x.internal; public class Hidden {"
                        + " public static class Inner { } static Object self = new Hidden(); }",
                "dev/bellows/y/internal/Shared.java", "package dev.bellows.y.internal; public class Shared { }",
                "app/Uses.java", "package app; class Uses { Object hidden = new dev.bellows.x.internal.Hidden(); }",
                "app/Nested.java", "package app; class Nested { dev.bellows.x.internal.Hidden.Inner inner; }",
                "app/Allowed.java", "package app; class Allowed { Object shared = new dev.bellows.y.internal.Shared(); }",
                "app/Plain.java", "package app; class Plain { String text = \"dev.bellows.x.internal\"; }"));

        assertThat(InternalUses.check("app", classes, InternalUses.allowed(" dev.bellows.y.internal.Shared, other.Type")))
                .singleElement().asString()
                .startsWith("app uses internal types of Bellows' modules:\n"
                        + "  app.Nested uses dev.bellows.x.internal.Hidden\n"
                        + "  app.Uses uses dev.bellows.x.internal.Hidden\n")
                .contains("bellows.internals.allowed")
                .doesNotContain("Allowed").doesNotContain("Plain").doesNotContain("x.internal.Hidden uses");
        assertThat(InternalUses.check("app", classes, InternalUses.allowed(
                "dev.bellows.x.internal.Hidden,dev.bellows.y.internal.Shared"))).isEmpty();
    }

    /** As ModuleChecksTest runs the checks: throws with the problems found. */
    private void run(String mode, Path classes, boolean api) throws Exception {
        run(mode, classes, api ? Compiled.loader(classes) : null);
    }

    /** As {@link #run(String, Path, boolean)}, the API checked (when {@code loader} is not null) with that loader. */
    private void run(String mode, Path classes, ClassLoader loader) throws Exception {
        boolean record = mode.equals("record");
        List<String> problems = new java.util.ArrayList<>();
        if (loader != null) {
            problems.addAll(BuildChecks.api(module, "m", classes, loader, record));
        }
        problems.addAll(BuildChecks.cycles(module, "m", classes, record));
        if (!problems.isEmpty()) {
            throw new AssertionError(String.join("\n", problems));
        }
    }
}
