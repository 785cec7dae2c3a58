package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import org.junit.jupiter.api.Test;

class FlameGraphSummaryTest {
    @Test
    void selfSamplesAreWidthMinusChildren() {
        // the packed form async-profiler 4.x writes: each cpool entry reuses (charCode - 32) chars
        // of the previous one; f(key, level, left, width), u = child of the last, n = next sibling
        String html = """
                <script>
                const cpool = [
                'all',
                ' main',
                '$put',
                '"in\\'s',
                ];
                unpack(cpool);

                f(0,0,0,100)
                u(8,60)
                u(16,40)
                n(24,15)
                f(8,1,20,40)
                search();
                </script>
                """;
        // cpool unpacks to: all, main, mainput ('$' = keep 4 chars), main's ('"' = keep 2)
        FlameGraphSummary.Summary s = FlameGraphSummary.parse(html, 10);
        assertThat(s.total()).isEqualTo(100);
        // frames: all(100) > main(60) > {mainput(40), main's(15)}; all > main(40) at left 60
        // self: main = (60 - 55) + 40 = 45, mainput 40, main's 15, all 0
        assertThat(s.topSelf()).extracting(FlameGraphSummary.Entry::frame).containsExactly("main", "mainput", "main's");
        assertThat(s.topSelf()).extracting(FlameGraphSummary.Entry::samples).containsExactly(45L, 40L, 15L);
    }

    /** A key is the frame's index in cpool times 8 plus its kind; 5 is a kernel frame. */
    static final String CPU = """
            <script>
            const cpool = [
            'all',
            ' java/lang/Thread.run',
            ' dht/storage/Memtable.seek',
            ' jdk/internal/foreign/AbstractMemorySegmentImpl.checkBounds',
            ' io/netty/channel/epoll/Native.epollWait0',
            ' finish_task_switch.isra.0',
            ' tcp_sendmsg',
            ' CompileBroker::compiler_thread_loop',
            ' C2Compiler::compile_method',
            ];
            unpack(cpool);

            f(0,0,0,100)
            u(9,70)
            u(17,30)
            u(25,20)
            f(35,2,30,40)
            u(45,25)
            n(53,10)
            f(60,1,70,20)
            u(68,20)
            </script>
            """;

    @Test
    void cpuSamplesGoToTheCodeThatCausedThem() {
        FlameGraphSummary.Summary s = FlameGraphSummary.parse(CPU, 10);
        // the JDK's bounds check under the memtable is the storage engine's time; a thread asleep
        // in epoll_wait is the scheduler's; the event loop's own frame is Netty's
        assertThat(s.categories()).extracting(FlameGraphSummary.Entry::frame, FlameGraphSummary.Entry::samples).containsExactly(
                tuple("storage engine", 30L),
                tuple("waiting/waking (kernel scheduler, futex)", 25L),
                tuple("JIT compiler", 20L),
                tuple("network (kernel)", 10L),
                tuple("other (JVM runtime, native)", 10L),
                tuple("Netty (channels, event loops, buffers)", 5L));
    }

    @Test
    void callersAreTheJavaFramesAboveAFrame() {
        FlameGraphSummary.Summary s = FlameGraphSummary.parse(CPU, 10, "finish_task_switch.isra.0", 2);
        assertThat(s.callers()).extracting(FlameGraphSummary.Entry::frame, FlameGraphSummary.Entry::samples)
                .containsExactly(tuple("io/netty/channel/epoll/Native.epollWait0 <- java/lang/Thread.run", 25L));
    }

    @Test
    void anUnknownFormatGivesAnEmptySummary() {
        FlameGraphSummary.Summary s = FlameGraphSummary.parse("<html>nothing here</html>", 5);
        assertThat(s.topSelf()).isEmpty();
        assertThat(s.categories()).isEmpty();
    }

    /** async-profiler's {@code threads} option: each stack's first frame names its thread. */
    static final String BY_THREAD = """
            <script>
            const cpool = [
            'all',
            ' [http-io-0 tid=101]',
            ')1 tid=102]',
            ' epoll_wait',
            ' dht/storage/Memtable.seek',
            ' io/netty/channel/epoll/Native.epollWait0',
            ];
            unpack(cpool);

            f(0,0,0,100)
            u(8,45)
            u(40,45)
            u(24,25)
            n(32,20)
            f(16,1,45,55)
            u(40,55)
            u(24,55)
            </script>
            """;

    @Test
    void aGraphTakenByThreadListsTheThreadsMostNotAsleepFirstWithTheirFramesOutsideWaits() {
        FlameGraphSummary.Summary s = FlameGraphSummary.parse(BY_THREAD, 10);
        // http-io-0: epollWait0 (45) > {epoll_wait 25, Memtable.seek 20}; http-io-1: epollWait0 > epoll_wait 55:
        // the first has fewer samples but is the one not asleep
        assertThat(s.threads()).extracting(FlameGraphSummary.ThreadEntry::thread, FlameGraphSummary.ThreadEntry::samples,
                        FlameGraphSummary.ThreadEntry::running)
                .containsExactly(tuple("[http-io-0 tid=101]", 45L, 20L), tuple("[http-io-1 tid=102]", 55L, 0L));
        assertThat(s.threads().getFirst().topSelf()).extracting(FlameGraphSummary.Entry::frame, FlameGraphSummary.Entry::samples)
                .containsExactly(tuple("dht/storage/Memtable.seek", 20L));
        assertThat(s.threads().getFirst().topSelf().getFirst().share()).isEqualTo(20.0 / 45);
        assertThat(s.threads().get(1).topSelf()).as("asleep throughout").isEmpty();
        assertThat(FlameGraphSummary.parse(CPU, 10).threads()).as("a graph not taken by thread").isEmpty();
    }
}
