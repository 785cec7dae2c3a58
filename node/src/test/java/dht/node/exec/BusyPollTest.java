package dht.node.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

class BusyPollTest {

    @Test
    void aWindowOfZeroLeavesNettysDefaultStrategy() {
        assertThat(BusyPoll.factory(0)).isNull();
    }

    @Test
    void readyEventsAndTasksAreServedAtOnce() throws Exception {
        SelectStrategy poll = BusyPoll.factory(1_000_000).newSelectStrategy();

        assertThat(poll.calculateStrategy(() -> 3, false)).isEqualTo(3);
        assertThat(poll.calculateStrategy(() -> 0, true)).isEqualTo(0);
    }

    @Test
    void anIdleLoopPollsWithinTheWindowAfterActivity() throws Exception {
        SelectStrategy poll = BusyPoll.factory(10_000_000).newSelectStrategy(); // 10 s
        poll.calculateStrategy(() -> 1, false);

        assertThat(poll.calculateStrategy(() -> 0, false)).isEqualTo(0);
    }

    @Test
    void anIdleLoopBlocksOnceTheWindowHasPassed() throws Exception {
        SelectStrategy poll = BusyPoll.factory(20_000).newSelectStrategy(); // 20 ms
        poll.calculateStrategy(() -> 1, false);

        Thread.sleep(50);
        assertThat(poll.calculateStrategy(() -> 0, false)).isEqualTo(SelectStrategy.SELECT);
    }
}
