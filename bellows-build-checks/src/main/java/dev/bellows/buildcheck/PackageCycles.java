package dev.bellows.buildcheck;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * The package cycles of one module's classes: the JDK's {@code jdeps} lists which package uses
 * which, a package and its {@code .internal} packages count as one, and every group of packages
 * that reach each other (a strongly connected component of two or more) is a cycle.
 */
final class PackageCycles {

    /** A line of {@code jdeps -verbose:package}: {@code from -> to  where}. */
    private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s+\\S.*$");

    private PackageCycles() {
    }

    /** Which package (as {@link #unit}) uses which among the classes under {@code classes}. */
    static Map<String, TreeSet<String>> graph(Path classes) throws Exception {
        Set<String> own = ownPackages(classes);
        Map<String, TreeSet<String>> graph = new TreeMap<>();
        if (own.isEmpty()) {
            return graph;               // no classes: nothing for jdeps to read
        }
        for (String[] edge : jdeps(classes)) {
            if (own.contains(edge[0]) && own.contains(edge[1])) {
                String from = unit(edge[0]);
                String to = unit(edge[1]);
                graph.computeIfAbsent(from, k -> new TreeSet<>());
                graph.computeIfAbsent(to, k -> new TreeSet<>());
                if (!from.equals(to)) {
                    graph.get(from).add(to);
                }
            }
        }
        return graph;
    }

    /** The package a package counts as: itself, or the one its {@code .internal} part hangs from. */
    static String unit(String pkg) {
        int at = ("." + pkg + ".").indexOf(".internal.");
        return at < 0 ? pkg : pkg.substring(0, Math.max(at - 1, 0));
    }

    /** The packages of the classes under {@code classes} (module-info aside). */
    static Set<String> ownPackages(Path classes) throws IOException {
        try (Stream<Path> files = Files.walk(classes)) {
            Set<String> packages = new TreeSet<>();
            files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().equals("module-info.class"))
                    .forEach(f -> {
                        Path dir = classes.relativize(f).getParent();
                        packages.add(dir == null ? "" : dir.toString().replace(classes.getFileSystem().getSeparator(), "."));
                    });
            return packages;
        }
    }

    private static List<String[]> jdeps(Path classes) throws IOException {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException(
                "this JDK has no jdeps (the jdk.jdeps module), which the package cycle check needs"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> args = new ArrayList<>(List.of("-verbose:package", "-filter:none"));
        if (Files.exists(classes.resolve("module-info.class"))) {
            // The class files, not the folder: a folder with a module-info is read as a module, and
            // jdeps then stops at the first module it requires that is not on its module path. (A
            // folder is read twice as fast, so it is given when it can be.)
            try (Stream<Path> files = Files.walk(classes)) {
                files.filter(f -> f.toString().endsWith(".class") && !f.getFileName().toString().equals("module-info.class"))
                        .map(Path::toString).sorted().forEach(args::add);
            }
        } else {
            args.add(classes.toString());
        }
        int status = jdeps.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
        if (status != 0) {
            throw new IllegalStateException("jdeps failed on " + classes + " (exit " + status + "): " + err + out);
        }
        List<String[]> edges = new ArrayList<>();
        for (String line : out.toString().split("\\R")) {
            Matcher m = EDGE.matcher(line);
            if (m.matches()) {
                edges.add(new String[] {m.group(1), m.group(2)});
            }
        }
        return edges;
    }

    /**
     * The cycles: the strongly connected components of two or more packages (Tarjan's algorithm,
     * iterative), each sorted, sorted by their first package.
     */
    static List<TreeSet<String>> cycles(Map<String, TreeSet<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new java.util.HashSet<>();
        List<TreeSet<String>> components = new ArrayList<>();
        int[] next = {0};
        for (String root : graph.keySet()) {
            if (index.containsKey(root)) {
                continue;
            }
            Deque<Object[]> work = new ArrayDeque<>();      // {node, iterator over its successors}
            visit(root, index, low, stack, onStack, next);
            work.push(new Object[] {root, graph.getOrDefault(root, new TreeSet<>()).iterator()});
            while (!work.isEmpty()) {
                Object[] frame = work.peek();
                String node = (String) frame[0];
                @SuppressWarnings("unchecked")
                java.util.Iterator<String> successors = (java.util.Iterator<String>) frame[1];
                if (successors.hasNext()) {
                    String to = successors.next();
                    if (!index.containsKey(to)) {
                        visit(to, index, low, stack, onStack, next);
                        work.push(new Object[] {to, graph.getOrDefault(to, new TreeSet<>()).iterator()});
                    } else if (onStack.contains(to)) {
                        low.put(node, Math.min(low.get(node), index.get(to)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = (String) work.peek()[0];
                    low.put(parent, Math.min(low.get(parent), low.get(node)));
                }
                if (low.get(node).equals(index.get(node))) {
                    TreeSet<String> component = new TreeSet<>();
                    String member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        component.add(member);
                    } while (!member.equals(node));
                    if (component.size() > 1) {
                        components.add(component);
                    }
                }
            }
        }
        components.sort((a, b) -> a.first().compareTo(b.first()));
        return components;
    }

    private static void visit(String node, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                              Set<String> onStack, int[] next) {
        index.put(node, next[0]);
        low.put(node, next[0]);
        next[0]++;
        stack.push(node);
        onStack.add(node);
    }
}
