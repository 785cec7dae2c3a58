package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HintedHandoffTest {
    final EventLoopGroup loops = new DefaultEventLoopGroup(1);
    final RecordingReplica peer = new RecordingReplica("http://peer");
    final Set<String> up = ConcurrentHashMap.newKeySet();
    HintedHandoff hints;

    @AfterEach
    void stop() {
        if (hints != null) hints.close();
        loops.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    static Entry entry(int i) {
        return Entry.value(("k" + i).getBytes(StandardCharsets.UTF_8), new byte[100], 1000 + i);
    }

    static void eventually(Runnable check) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            try {
                check.run();
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(20);
            }
        }
    }

    @Test
    void writesHeldForADownPeerAreDeliveredInOrderOnceItIsUp() throws Exception {
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 1 << 20);
        List<Entry> missed = new ArrayList<>();
        for (int i = 0; i < 200; i++) { // more than one batch
            missed.add(entry(i));
            hints.hold(peer.url, entry(i));
        }
        hints.hold("http://not-a-peer", entry(999));
        Thread.sleep(3 * HintedHandoff.CHECK_INTERVAL.toMillis());
        assertThat(peer.written).as("nothing while the peer is down").isEmpty();
        assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(200, 0, 0, 0, 200));

        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactlyElementsOf(missed));
        eventually(() -> assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(200, 200, 0, 0, 0)));
    }

    /**
     * A peer that lost keys to a join while it was down gets no hint for them once back: its
     * cleanup ran, and a copy delivered after it would stay there, one too many, for good.
     */
    @Test
    void aHintForAKeyThePeerNoLongerOwnsIsDroppedNotDelivered() throws Exception {
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 1 << 20);
        hints.deliverOnlyWhere((url, e) -> e.key()[1] % 2 == 0); // k0, k2, k4 still its keys
        for (int i = 0; i < 5; i++) hints.hold(peer.url, entry(i));
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactly(entry(0), entry(2), entry(4)));
        eventually(() -> assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(5, 3, 2, 0, 0)));
        assertThat(hints.peerCounts().get(peer.url)).containsEntry("droppedNotOwned", 2L);
    }

    @Test
    void aPeerAddedAfterStartGetsHintsToo() throws Exception {
        Map<String, Replica> peers = new ConcurrentHashMap<>();
        hints = new HintedHandoff(peers, up::contains, loops.next(), 1 << 20);
        hints.hold(peer.url, entry(1));
        assertThat(hints.counts().held()).as("not a peer yet").isZero();

        peers.put(peer.url, peer); // a node that joined
        hints.hold(peer.url, entry(2));
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactly(entry(2)));
    }

    @Test
    void theHintsOfAPeerNoLongerInTheClusterAreDropped() throws Exception {
        Map<String, Replica> peers = new ConcurrentHashMap<>(Map.of(peer.url, peer));
        hints = new HintedHandoff(peers, up::contains, loops.next(), 1 << 20);
        for (int i = 0; i < 3; i++) hints.hold(peer.url, entry(i));
        assertThat(hints.counts().waiting()).isEqualTo(3);

        peers.remove(peer.url); // it was removed from the membership
        eventually(() -> assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(3, 0, 3, 0, 0)));
        assertThat(hints.peerCounts().get(peer.url)).containsEntry("droppedRemoved", 3L);
        hints.hold(peer.url, entry(9));
        up.add(peer.url);
        Thread.sleep(3 * HintedHandoff.CHECK_INTERVAL.toMillis());
        assertThat(peer.written).isEmpty();
        assertThat(hints.counts().held()).isEqualTo(3);
    }

    @Test
    void aDeliveryThatFailsIsKeptAndRetriedLater() throws Exception {
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 1 << 20);
        hints.hold(peer.url, entry(1));
        hints.hold(peer.url, entry(2));
        peer.failing = true; // believed up, but writes still fail: refusals, kept (the window is 30 s)
        up.add(peer.url);
        Thread.sleep(3 * HintedHandoff.CHECK_INTERVAL.toMillis());
        assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(2, 0, 0, 0, 2));

        peer.failing = false;
        eventually(() -> assertThat(peer.written).containsExactly(entry(1), entry(2)));
    }

    @Test
    void aHintTheLivePeerKeepsRefusingIsDroppedAfterMaxRefusals() throws Exception {
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 1 << 20, Duration.ZERO,
                HintSettings.DEFAULTS, Duration.ofDays(1), null, () -> 0L);
        peer.refused.add(entry(1));
        hints.hold(peer.url, entry(1));
        hints.hold(peer.url, entry(2));
        up.add(peer.url);
        eventually(() -> assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(2, 1, 1, 0, 0)));
        assertThat(peer.written).containsExactly(entry(2));
    }

    @Test
    void aPeerRefusingForLessThanTheWindowKeepsItsHints() throws Exception {
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 1 << 20, Duration.ofMinutes(1),
                HintSettings.DEFAULTS, Duration.ofDays(1), null, () -> 0L);
        peer.failing = true; // up but answering 503, say
        hints.hold(peer.url, entry(1));
        up.add(peer.url);
        Thread.sleep((HintedHandoff.MAX_REFUSALS + 3) * HintedHandoff.CHECK_INTERVAL.toMillis());
        assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(1, 0, 0, 0, 1));

        peer.failing = false;
        eventually(() -> assertThat(peer.written).containsExactly(entry(1)));
    }

    @Test
    void pastTheByteBudgetNewHintsAreDroppedAndCounted() {
        long oneHint = 2 + 100 + Hint.OVERHEAD; // key "kN", value
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 3 * oneHint);
        for (int i = 0; i < 5; i++) hints.hold(peer.url, entry(i));
        assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(3, 0, 2, 0, 3));
    }

    @Test
    void aPeerKeepsOneHintPerKeyTheNewest() throws Exception {
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 1 << 20);
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        Entry v1 = Entry.value(k, "v1".getBytes(StandardCharsets.UTF_8), 10);
        Entry deleted = Entry.tombstone(k, 20);
        for (int i = 0; i < 1000; i++) hints.hold(peer.url, Entry.value(k, new byte[100], 5)); // one key, written often
        hints.hold(peer.url, v1);
        hints.hold(peer.url, deleted);
        hints.hold(peer.url, v1); // late: older than the delete
        hints.hold(peer.url, entry(1));
        assertThat(hints.counts()).isEqualTo(new HintedHandoff.Counts(1004, 0, 0, 1002, 2));

        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactly(deleted, entry(1)));
    }

    @Test
    void aNewerHintReplacesOneThatFailedToDeliver() throws Exception {
        hints = new HintedHandoff(Map.of(peer.url, peer), up::contains, loops.next(), 1 << 20);
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        Entry older = Entry.value(k, "old".getBytes(StandardCharsets.UTF_8), 10);
        Entry newer = Entry.value(k, "new".getBytes(StandardCharsets.UTF_8), 20);
        peer.failing = true;
        hints.hold(peer.url, older);
        up.add(peer.url);
        Thread.sleep(2 * HintedHandoff.CHECK_INTERVAL.toMillis()); // tried and failed at least once
        hints.hold(peer.url, newer);
        // The sleep ends when a check is due: the older may be in a batch under way, which the
        // peer would take once it stops failing. Superseded, it is never sent again.
        eventually(() -> assertThat(hints.counts().superseded()).isEqualTo(1));
        peer.failing = false;
        eventually(() -> assertThat(peer.written).contains(newer));
        eventually(() -> assertThat(hints.counts().waiting()).isZero());
        assertThat(peer.written).doesNotContain(older);
    }
}
