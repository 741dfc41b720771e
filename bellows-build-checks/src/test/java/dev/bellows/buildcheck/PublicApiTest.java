package dev.bellows.buildcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublicApiTest {

    @TempDir
    Path root;

    private static final Map<String, String> SOURCES = Map.of(
            "p/Shape.java", """
                    package p;
                    public sealed interface Shape permits Circle, Shape.Square {
                        double area();
                        default String label() { return "shape"; }
                        record Square(double side) implements Shape {
                            public double area() { return side * side; }
                        }
                    }""",
            "p/Circle.java", """
                    package p;
                    public final class Circle implements Shape, Comparable<Circle> {
                        public static final String NAME = "circle";
                        private final double radius;
                        public Circle(double radius) { this.radius = radius; }
                        public double area() { return Math.PI * radius * radius; }
                        public int compareTo(Circle other) { return Double.compare(radius, other.radius); }
                        public static <T extends Shape & Comparable<T>> T largest(java.util.List<? extends T> all, T... more)
                                throws java.io.IOException { return null; }
                        protected void hidden() { }
                        void packagePrivate() { }
                        protected static class NotApi { }
                    }""",
            "p/Base.java", """
                    package p;
                    abstract class Base {
                        public String inherited() { return ""; }
                        protected abstract void extend();
                    }""",
            "p/Open.java", """
                    package p;
                    public abstract class Open extends Base {
                        protected Open() { }
                        protected abstract void extend();
                        public enum Mode { FAST, SLOW; public boolean fast() { return this == FAST; } }
                    }""",
            "p/Hidden.java", "package p; class Hidden { public void no() { } }",
            "p/internal/Machinery.java", "package p.internal; public class Machinery { public void no() { } }");

    @Test
    void readsTypesMembersComponentsPermitsAndConstantsSorted() throws Exception {
        Path classes = Compiled.classes(root, SOURCES);
        List<String> api = PublicApi.render(classes, Compiled.loader(classes));
        assertThat(api).containsExactly(
                "public final class p.Circle implements p.Shape, java.lang.Comparable<p.Circle>",
                "    public double area()",
                "    public int compareTo(p.Circle)",
                "    public p.Circle(double)",
                "    public static <T extends p.Shape & java.lang.Comparable<T>> T largest(java.util.List<? extends T>, T...)"
                        + " throws java.io.IOException",
                "    public static final java.lang.String NAME",
                "",
                "public abstract class p.Open extends p.Base",
                "    protected abstract void extend()",
                "    protected p.Open()",
                "    public java.lang.String inherited()",
                "",
                "public enum p.Open$Mode",
                "    enum constant FAST",
                "    enum constant SLOW",
                "    public boolean fast()",
                "    public static p.Open$Mode valueOf(java.lang.String)",
                "    public static p.Open$Mode[] values()",
                "",
                "public sealed interface p.Shape permits p.Circle, p.Shape$Square",
                "    public default java.lang.String label()",
                "    public double area()",
                "",
                "public record p.Shape$Square(double side) implements p.Shape",
                "    public double area()",
                "    public double side()",
                "    public final boolean equals(java.lang.Object)",
                "    public final int hashCode()",
                "    public final java.lang.String toString()",
                "    public p.Shape$Square(double)");
    }

    @Test
    void aChangedSignatureIsNamedWithItsType() throws Exception {
        List<String> before = List.of("public final class p.A", "    public void run()", "", "public interface p.B");
        List<String> after = List.of("public final class p.A", "    public void run(int)", "", "public interface p.B<T>");
        assertThat(ApiDiff.between(before, after)).containsExactly(
                "- p.A :: public void run()",
                "- public interface p.B",
                "+ p.A :: public void run(int)",
                "+ public interface p.B<T>");
        assertThat(ApiDiff.between(before, before)).isEmpty();
    }
}
