package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

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

    @Test
    void anUnknownFormatGivesAnEmptySummary() {
        assertThat(FlameGraphSummary.parse("<html>nothing here</html>", 5).topSelf()).isEmpty();
    }
}
