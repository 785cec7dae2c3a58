package dht.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an async-profiler 4.x HTML flame graph (its packed frame table: {@code cpool}, then
 * {@code f/u/n} calls) and says in numbers where the samples went: the frames with the most self
 * samples, the share of each {@link #category} (for CPU profiles), and which Java frames lead to a
 * given frame. Parsing is best effort: an unknown format gives an empty summary, never a wrong one
 * silently (callers print "could not read").
 */
final class FlameGraphSummary {
    record Entry(String frame, long samples, double share) {
    }

    /**
     * One thread's samples in a graph taken by thread: {@code running} those whose innermost frame
     * is not an {@link #IDLE} wait, and its frames with the most of them (shares of the thread's
     * samples). In a wall graph every thread has about the same samples, so what tells them apart
     * is how many were not asleep and where.
     */
    record ThreadEntry(String thread, long samples, double share, long running, List<Entry> topSelf) {
    }

    /**
     * @param topSelf    frames by self samples, most first
     * @param categories every {@link #category} with samples, most first
     * @param callers    for the frame asked about, its self samples by the chain of Java frames above it
     * @param threads    in a graph taken by thread (async-profiler's {@code threads}: each stack's first
     *                   frame names its thread), each thread, most {@code running} samples first; else empty
     */
    record Summary(long total, List<Entry> topSelf, List<Entry> categories, List<Entry> callers, List<ThreadEntry> threads) {
    }

    /** A frame that names a thread: {@code [name tid=N]}. */
    private static final Pattern THREAD = Pattern.compile("^\\[.* tid=\\d+\\]$");
    /** Self frames listed per thread. */
    static final int THREAD_TOP = 3;
    /**
     * Innermost frames of a thread asleep until there is work, or until a lock or a timer lets it
     * go (a wall graph samples threads whether they run or not): a futex wait (park, a lock, a
     * condition), epoll, sleep. Which of those a wait was, the Java frames above it tell.
     */
    private static final Pattern IDLE = Pattern.compile("^_*(GI_+)?(_*futex_abstimed_wait_common|futex_wait.*|epoll_wait|epoll_pwait2?|"
            + "(clock_|do_)?nanosleep|poll|pthread_cond_(timed)?wait.*)$");

    /** {@code type} is async-profiler's frame kind (the key's low 3 bits); {@link #KERNEL} for the kernel. */
    private record Frame(int level, long width, int type, String title) {
    }

    static final int KERNEL = 5;
    private static final Pattern CALL = Pattern.compile("^([fun])\\(([^)]*)\\)$");
    private static final Pattern GC = Pattern.compile("G1|ZGC|ZDriver|GangWorker|WorkerThread::run|VMThread|SerialHeap|ConcurrentGCThread");
    private static final Pattern SCHEDULER = Pattern.compile("finish_task_switch|_raw_spin_unlock|schedule|futex|try_to_wake_up|ttwu|"
            + "pick_next|dequeue_task|enqueue_task|update_curr|select_task_rq");
    private static final Pattern NETWORK = Pattern.compile("tcp_|sock_|ip_|skb|epoll|ep_|net_|inet_|__sys_send|__sys_recv|eventfd|"
            + "_copy_to_iter|_copy_from_iter|loopback|dev_|napi|bbr_");
    /** Code of ours or Netty's, innermost first wins: JDK code they call counts for them. */
    private static final String[][] OWNERS = {
            {"dht/storage", "storage engine"}, {"io/netty/handler/codec", "HTTP codec (Netty)"},
            {"io/netty", "Netty (channels, event loops, buffers)"}, {"dht/node", "node (routes, coordination)"},
            {"dht/", "other dht"}};

    private FlameGraphSummary() {
    }

    static Summary parse(String html, int top) {
        return parse(html, top, null, 0);
    }

    /**
     * @param callersOf a frame's title, or null: then {@link Summary#callers} lists its self samples
     *                  by the innermost {@code depth} Java frames of the stacks it was sampled in
     */
    static Summary parse(String html, int top, String callersOf, int depth) {
        List<Frame> frames = frames(html);
        if (frames.isEmpty()) {
            return new Summary(0, List.of(), List.of(), List.of(), List.of());
        }
        long total = frames.getFirst().width();
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> categories = new HashMap<>();
        Map<String, Long> callers = new LinkedHashMap<>();
        Map<String, Long> threads = new HashMap<>();
        Map<String, Map<String, Long>> threadSelf = new HashMap<>();
        // Frames come in depth-first order, so a stack of open frames gives every frame its path;
        // a frame's self samples (its width less its children's) are known when it is closed.
        List<Frame> path = new ArrayList<>();
        List<long[]> childWidth = new ArrayList<>();
        for (int i = 0; i <= frames.size(); i++) {
            Frame f = i < frames.size() ? frames.get(i) : null;
            while (!path.isEmpty() && (f == null || path.getLast().level() >= f.level())) {
                Frame done = path.getLast();
                long own = done.width() - childWidth.getLast()[0];
                if (own > 0) {
                    String title = done.title().trim();
                    self.merge(title, own, Long::sum);
                    categories.merge(category(path), own, Long::sum);
                    if (title.equals(callersOf)) callers.merge(javaChain(path, depth), own, Long::sum);
                    String thread = path.size() > 1 && THREAD.matcher(path.get(1).title()).matches() ? path.get(1).title() : null;
                    if (thread != null) {
                        threads.merge(thread, own, Long::sum);
                        if (!IDLE.matcher(title).matches()) {
                            threadSelf.computeIfAbsent(thread, t -> new HashMap<>()).merge(title, own, Long::sum);
                        }
                    }
                }
                path.removeLast();
                childWidth.removeLast();
            }
            if (f == null) break;
            if (!childWidth.isEmpty()) childWidth.getLast()[0] += f.width();
            path.add(f);
            childWidth.add(new long[1]);
        }
        List<ThreadEntry> byThread = new ArrayList<>();
        for (Entry t : ranked(threads, Integer.MAX_VALUE, total)) {
            Map<String, Long> running = threadSelf.getOrDefault(t.frame(), Map.of());
            byThread.add(new ThreadEntry(t.frame(), t.samples(), t.share(), running.values().stream().mapToLong(Long::longValue).sum(),
                    ranked(running, THREAD_TOP, t.samples())));
        }
        byThread.sort((a, b) -> Long.compare(b.running(), a.running()));
        return new Summary(total, ranked(self, top, total), ranked(categories, Integer.MAX_VALUE, total),
                ranked(callers, 15, total), byThread);
    }

    /**
     * Where a sample's CPU went, judged on its whole stack, first match wins: the JIT compiler, a
     * GC thread; in the kernel, the scheduler and futexes (a thread going to sleep in
     * {@code epoll_wait} or park, or waking another: the cost of handing work between threads), the
     * network (anything under a socket or epoll call), other kernel work; in user space, the
     * innermost frame of ours or Netty's, else the JDK, else the JVM's own code.
     */
    private static String category(List<Frame> frames) {
        StringBuilder joined = new StringBuilder();
        for (Frame f : frames) joined.append(f.title()).append(' ');
        if (joined.indexOf("CompileBroker") >= 0) return "JIT compiler";
        if (GC.matcher(joined).find()) return "GC";
        Frame leaf = frames.getLast();
        if (leaf.type() == KERNEL) {
            if (SCHEDULER.matcher(leaf.title()).find()) return "waiting/waking (kernel scheduler, futex)";
            for (Frame f : frames) {
                if (f.type() == KERNEL && NETWORK.matcher(f.title()).find()) return "network (kernel)";
            }
            return "other kernel";
        }
        for (int i = frames.size() - 1; i >= 0; i--) {
            for (String[] owner : OWNERS) {
                if (frames.get(i).title().startsWith(owner[0])) return owner[1];
            }
        }
        for (Frame f : frames) {
            String t = f.title();
            if (t.startsWith("java/") || t.startsWith("jdk/") || t.startsWith("sun/")) return "JDK";
        }
        return "other (JVM runtime, native)";
    }

    private static String javaChain(List<Frame> path, int depth) {
        List<String> java = new ArrayList<>();
        for (int i = path.size() - 1; i >= 0 && java.size() < depth; i--) {
            String t = path.get(i).title();
            if (t.contains("/") && !t.startsWith("/")) java.add(t);
        }
        return java.isEmpty() ? "(no Java frame)" : String.join(" <- ", java);
    }

    private static List<Entry> ranked(Map<String, Long> samples, int top, long total) {
        return samples.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .map(e -> new Entry(e.getKey(), e.getValue(), total > 0 ? (double) e.getValue() / total : 0)).toList();
    }

    /**
     * An async-profiler flame graph in which nothing was sampled: its frame names are the root's
     * alone. Told apart from a graph whose frames this parser cannot read (a format change), which
     * parses to no samples too but names frames.
     */
    static boolean isEmptyProfile(String html) {
        Pool pool = pool(html);
        return pool != null && pool.names().size() == 1;
    }

    /** Why a profile has no samples, for the lines that say so: a lock profile's reason is a finding. */
    static String whyNoSamples(boolean lockProfile) {
        return lockProfile ? "no lock was contended while it ran" : "nothing was sampled while it ran";
    }

    /** The graph's frame names ({@code const cpool = [...]}), still prefix-packed, and where the array ends. */
    private record Pool(List<String> names, int end) {
    }

    /** The frame-name pool, or null when the graph has none (not an async-profiler flame graph). */
    private static Pool pool(String html) {
        int start = html.indexOf("const cpool = [");
        int end = start < 0 ? -1 : html.indexOf("];", start);
        return end < 0 ? null : new Pool(strings(html.substring(start + "const cpool = [".length(), end)), end);
    }

    /** The frames in drawing order (depth first), or none when the format is not recognised. */
    private static List<Frame> frames(String html) {
        Pool pool = pool(html);
        if (pool == null) {
            return List.of();
        }
        List<String> cpool = pool.names();
        int end = pool.end();
        for (int i = 1; i < cpool.size(); i++) {
            String s = cpool.get(i);
            cpool.set(i, cpool.get(i - 1).substring(0, s.charAt(0) - 32) + s.substring(1));
        }
        List<Frame> frames = new ArrayList<>();
        int level0 = 0;
        long width0 = 0;
        for (String line : html.substring(end).split("\n")) {
            Matcher m = CALL.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            // f(key, level, left, width): a frame at that level; u(key, width): the first child of
            // the previous frame; n(key, width): its next sibling. A missing width repeats the last.
            String[] a = m.group(2).split(",");
            int key = Integer.parseInt(a[0].trim());
            int widthArg = m.group(1).equals("f") ? 3 : 1;
            int level = switch (m.group(1)) {
                case "f" -> Integer.parseInt(a[1].trim());
                case "u" -> level0 + 1;
                default -> level0;
            };
            long width = a.length > widthArg && !a[widthArg].isBlank() ? Long.parseLong(a[widthArg].trim()) : width0;
            level0 = level;
            width0 = width;
            int idx = key >>> 3;
            frames.add(new Frame(level, width, key & 7, idx < cpool.size() ? cpool.get(idx) : "?"));
        }
        return frames;
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
