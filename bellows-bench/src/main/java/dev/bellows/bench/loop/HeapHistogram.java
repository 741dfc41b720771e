package dev.bellows.bench.loop;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.management.ObjectName;

/**
 * The live heap class by class ({@code jcmd GC.class_histogram}, taken in-process through the
 * diagnostic command bean; it runs a full collection first), and what grew between two such
 * histograms, per session: where a waiting session's bytes are.
 */
final class HeapHistogram {

    private HeapHistogram() {
    }

    /** Class name to {instances, bytes}. */
    static Map<String, long[]> take() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> classes = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] fields = line.strip().split("\\s+");
            // "  1:   245172   95508304  [B (java.base@25.0.3)"
            if (fields.length >= 4 && fields[0].endsWith(":")) {
                classes.put(fields[3], new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
            }
        }
        return classes;
    }

    /** Prints the 20 classes that grew most, in bytes and instances per session. */
    static void printGrowth(Map<String, long[]> before, Map<String, long[]> after, int sessions) {
        System.out.printf(Locale.ROOT, "%nheap growth per waiting session, %,d sessions (live objects):%n", sessions);
        System.out.println("| class | instances per session | bytes per session |");
        System.out.println("|---|---|---|");
        long[] none = {0, 0};
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), new long[] {e.getValue()[0] - before.getOrDefault(e.getKey(), none)[0],
                        e.getValue()[1] - before.getOrDefault(e.getKey(), none)[1]}))
                .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                .limit(20)
                .forEach(e -> System.out.printf(Locale.ROOT, "| %s | %.1f | %,.0f |%n", e.getKey(),
                        e.getValue()[0] / (double) sessions, e.getValue()[1] / (double) sessions));
        long total = after.values().stream().mapToLong(v -> v[1]).sum() - before.values().stream().mapToLong(v -> v[1]).sum();
        System.out.printf(Locale.ROOT, "| all | | %,.0f |%n%n", total / (double) sessions);
    }
}
