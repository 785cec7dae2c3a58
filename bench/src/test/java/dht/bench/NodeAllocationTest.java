package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class NodeAllocationTest {
    @Test
    void bytesPerRequestIsTheCountersGrowthOverTheWindowSummedOverNodesAndDividedByRequests() throws Exception {
        AtomicLong a = new AtomicLong(1_000_000);
        AtomicLong b = new AtomicLong(5_000_000);
        try (TestServers.Running first = status(a); TestServers.Running second = status(b)) {
            NodeAllocation allocation = NodeAllocation.startAfter(
                    List.of(Target.parse(first.url()), Target.parse(second.url())), Duration.ZERO);
            Thread.sleep(300); // the window-opening read happens in the background
            a.addAndGet(3_000_000);
            b.addAndGet(1_000_000);
            assertThat(allocation.finish(1_000)).startsWith("Node allocation: 4,000 bytes/request").contains("2 nodes");
        }
    }

    @Test
    void aNodeWithoutTheFigureIsNamedInsteadOfGuessed() throws Exception {
        try (TestServers.Running nginxLike = TestServers.start(ex -> TestServers.answer(ex, 200, "<html>".getBytes()), 1)) {
            NodeAllocation allocation = NodeAllocation.startAfter(List.of(Target.parse(nginxLike.url())), Duration.ZERO);
            assertThat(allocation.finish(1_000)).isEqualTo("Node allocation: not reported by " + nginxLike.url());
        }
    }

    @Test
    void aNodeThatStoppedAnsweringIsToldApartFromOneThatDoesNotReport() throws Exception {
        TestServers.Running gone = status(new AtomicLong(1_000));
        NodeAllocation allocation = NodeAllocation.startAfter(List.of(Target.parse(gone.url())), Duration.ZERO);
        Thread.sleep(300); // the window-opening read happens in the background
        gone.close();
        assertThat(allocation.finish(1_000))
                .isEqualTo("Node allocation: not known (" + gone.url() + " did not answer /v0/status with 200 at the end of the run)");
    }

    private static TestServers.Running status(AtomicLong allocated) throws Exception {
        return TestServers.start(ex -> TestServers.answer(ex, 200,
                ("{\"node\":\"x\",\"jvm\":{\"heapUsedBytes\":1,\"allocatedBytes\":" + allocated.get() + ",\"gcCount\":0}}")
                        .getBytes(StandardCharsets.UTF_8)), 1);
    }
}
