package dht.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an async-profiler 4.x HTML flame graph (its packed frame table: {@code cpool}, then
 * {@code f/u/n} calls) and lists the frames with the most self samples, so that a report can say
 * in numbers where the time or the allocations go. Parsing is best effort: an unknown format
 * gives an empty summary, never a wrong one silently (callers print "could not read").
 */
final class FlameGraphSummary {
    record Entry(String frame, long samples, double share) {
    }

    record Summary(long total, List<Entry> topSelf) {
    }

    private record Frame(int level, long left, long width, String title) {
    }

    private static final Pattern CALL = Pattern.compile("^([fun])\\(([^)]*)\\)$");

    private FlameGraphSummary() {
    }

    static Summary parse(String html, int top) {
        int start = html.indexOf("const cpool = [");
        int end = start < 0 ? -1 : html.indexOf("];", start);
        if (start < 0 || end < 0) {
            return new Summary(0, List.of());
        }
        List<String> cpool = strings(html.substring(start + "const cpool = [".length(), end));
        for (int i = 1; i < cpool.size(); i++) {
            String s = cpool.get(i);
            cpool.set(i, cpool.get(i - 1).substring(0, s.charAt(0) - 32) + s.substring(1));
        }
        List<Frame> frames = new ArrayList<>();
        int level0 = 0;
        long left0 = 0;
        long width0 = 0;
        for (String line : html.substring(end).split("\n")) {
            Matcher m = CALL.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            String[] a = m.group(2).split(",");
            int key = Integer.parseInt(a[0].trim());
            int level;
            long left;
            long width;
            switch (m.group(1)) {
                case "f" -> {
                    level = Integer.parseInt(a[1].trim());
                    left = left0 + Long.parseLong(a[2].trim());
                    width = a.length > 3 && !a[3].isBlank() ? Long.parseLong(a[3].trim()) : width0;
                }
                case "u" -> {
                    level = level0 + 1;
                    left = left0;
                    width = a.length > 1 && !a[1].isBlank() ? Long.parseLong(a[1].trim()) : width0;
                }
                default -> {
                    level = level0;
                    left = left0 + width0;
                    width = a.length > 1 && !a[1].isBlank() ? Long.parseLong(a[1].trim()) : width0;
                }
            }
            level0 = level;
            left0 = left;
            width0 = width;
            int idx = key >>> 3;
            frames.add(new Frame(level, left, width, idx < cpool.size() ? cpool.get(idx) : "?"));
        }
        if (frames.isEmpty()) {
            return new Summary(0, List.of());
        }
        long total = frames.getFirst().width();
        // self = width minus the children (frames one level up lying within it)
        Map<Integer, List<Frame>> byLevel = new HashMap<>();
        for (Frame f : frames) {
            byLevel.computeIfAbsent(f.level(), k -> new ArrayList<>()).add(f);
        }
        Map<String, Long> self = new HashMap<>();
        for (Frame f : frames) {
            long children = 0;
            for (Frame c : byLevel.getOrDefault(f.level() + 1, List.of())) {
                if (c.left() >= f.left() && c.left() < f.left() + f.width()) {
                    children += c.width();
                }
            }
            long s = f.width() - children;
            if (s > 0) {
                self.merge(f.title().trim(), s, Long::sum);
            }
        }
        List<Entry> entries = new ArrayList<>();
        self.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .forEach(e -> entries.add(new Entry(e.getKey(), e.getValue(), total > 0 ? (double) e.getValue() / total : 0)));
        return new Summary(total, entries);
    }

    /** The single-quoted JavaScript strings of the array body, unescaped. */
    private static List<String> strings(String body) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < body.length()) {
            char c = body.charAt(i);
            if (c != '\'') {
                i++;
                continue;
            }
            StringBuilder b = new StringBuilder();
            i++;
            while (i < body.length() && body.charAt(i) != '\'') {
                char d = body.charAt(i);
                if (d == '\\' && i + 1 < body.length()) {
                    b.append(body.charAt(i + 1));
                    i += 2;
                } else {
                    b.append(d);
                    i++;
                }
            }
            out.add(b.toString());
            i++;
        }
        return out;
    }
}
