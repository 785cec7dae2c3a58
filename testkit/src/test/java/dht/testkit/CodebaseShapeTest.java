package dht.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The codebase's shape, held by a test so that it stays: no main source file over 500 lines, no
 * cycle between packages, and the node's {@code -Ddht.*} settings named in one class only. It reads the
 * sources of every module beside this one; a package depends on another when one of its files
 * names a class of it outside comments, by import or by a fully qualified name.
 */
class CodebaseShapeTest {
    private static final int MAX_LINES = 500;
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
    /** A reference to a class of ours: lower-case package segments, then a capitalised name. */
    private static final Pattern REFERENCE = Pattern.compile("\\b(dht(?:\\.[a-z][a-z0-9_]*)+)\\.[A-Z]");
    /** Comments, which may name any class without depending on it (a "//" in a string ends a line early: harmless here). */
    private static final Pattern COMMENT = Pattern.compile("(?s)/\\*.*?\\*/|//[^\n]*");
    /** A {@code -Ddht.*} name written out: a string literal "dht.x", other than a logger's name. */
    private static final Pattern SETTING_NAME = Pattern.compile("(?<!getLogger\\()\"dht\\.[a-zA-Z]");
    /** The modules a node runs; bench and jmh are tools with settings of their own. */
    private static final Set<String> NODE_MODULES = Set.of("storage", "node", "cli");

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void noMainSourceFileIsOverFiveHundredLines() {
        Map<Path, Integer> tooLong = new TreeMap<>();
        for (Path f : mainSources()) {
            int lines = read(f).split("\n", -1).length - 1;
            if (lines > MAX_LINES) tooLong.put(ROOT.relativize(f), lines);
        }
        assertThat(tooLong).as("main source files over %d lines", MAX_LINES).isEmpty();
    }

    @Test
    void packagesFormNoCycle() {
        Map<String, Set<String>> edges = packageGraph();
        List<List<String>> cycles = stronglyConnected(edges).stream().filter(c -> c.size() > 1).toList();
        assertThat(cycles).as("package cycles (each list is a set of packages that reach each other)").isEmpty();
    }

    @Test
    void dhtSettingsAreNamedInOneClassOnly() {
        Set<String> namers = new TreeSet<>();
        for (Path f : mainSources()) {
            Path relative = ROOT.relativize(f);
            if (NODE_MODULES.contains(relative.getName(0).toString()) && SETTING_NAME.matcher(read(f)).find()) {
                namers.add(relative.toString());
            }
        }
        assertThat(namers).as("classes naming -Ddht.* settings").hasSizeLessThanOrEqualTo(1);
    }

    private static List<Path> mainSources() {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path m : modules.filter(p -> Files.isDirectory(p.resolve("src/main/java"))).sorted().toList()) {
                try (Stream<Path> s = Files.walk(m.resolve("src/main/java"))) {
                    s.filter(p -> p.toString().endsWith(".java")).sorted().forEach(out::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(out).as("main sources under %s", ROOT).isNotEmpty();
        return out;
    }

    private static Map<String, Set<String>> packageGraph() {
        Map<String, Set<String>> edges = new TreeMap<>();
        for (Path f : mainSources()) {
            String text = read(f);
            Matcher p = PACKAGE.matcher(text);
            if (!p.find()) continue;
            String from = p.group(1);
            Set<String> to = edges.computeIfAbsent(from, k -> new TreeSet<>());
            Matcher r = REFERENCE.matcher(COMMENT.matcher(text.substring(p.end())).replaceAll(" "));
            while (r.find()) {
                if (!r.group(1).equals(from)) to.add(r.group(1));
            }
        }
        return edges;
    }

    /** Tarjan's algorithm, iteratively: the strongly connected components of the graph. */
    private static List<List<String>> stronglyConnected(Map<String, Set<String>> edges) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new java.util.HashSet<>();
        List<List<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String start : edges.keySet()) {
            if (index.containsKey(start)) continue;
            Deque<Object[]> work = new ArrayDeque<>();
            work.push(new Object[] {start, edges.getOrDefault(start, Set.of()).iterator()});
            index.put(start, counter[0]);
            low.put(start, counter[0]++);
            stack.push(start);
            onStack.add(start);
            while (!work.isEmpty()) {
                Object[] top = work.peek();
                String v = (String) top[0];
                @SuppressWarnings("unchecked")
                java.util.Iterator<String> it = (java.util.Iterator<String>) top[1];
                if (it.hasNext()) {
                    String w = it.next();
                    if (!index.containsKey(w)) {
                        index.put(w, counter[0]);
                        low.put(w, counter[0]++);
                        stack.push(w);
                        onStack.add(w);
                        work.push(new Object[] {w, edges.getOrDefault(w, Set.of()).iterator()});
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                } else {
                    work.pop();
                    if (!work.isEmpty()) {
                        String parent = (String) work.peek()[0];
                        low.put(parent, Math.min(low.get(parent), low.get(v)));
                    }
                    if (low.get(v).equals(index.get(v))) {
                        List<String> component = new ArrayList<>();
                        String w;
                        do {
                            w = stack.pop();
                            onStack.remove(w);
                            component.add(w);
                        } while (!w.equals(v));
                        out.add(component);
                    }
                }
            }
        }
        return out;
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
