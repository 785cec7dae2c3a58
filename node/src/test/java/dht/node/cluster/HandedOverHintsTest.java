package dht.node.cluster;

import static dht.node.cluster.HintedHandoffTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.Entry;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The versions a leaving node hands over for a member that is down: their wire form, kept on disk
 * across a restart of the member keeping them, never dropped for their age, delivered once the
 * member is up.
 */
class HandedOverHintsTest {
    final EventLoopGroup loops = new DefaultEventLoopGroup(1);
    final RecordingReplica member = new RecordingReplica("http://down:1");
    final Set<String> up = ConcurrentHashMap.newKeySet();
    final List<HandedOverHints> open = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        open.forEach(HandedOverHints::close);
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    HandedOverHints start() {
        HintStorage storage = new HintStorage(dir.resolve("hints"), false, Duration.ofHours(1),
                new HintSettings(Duration.ofMinutes(1), 1L << 20, 8L << 20));
        HandedOverHints h = new HandedOverHints(Map.of(member.url, member), up::contains, loops.next(), 1L << 20, storage);
        open.add(h);
        return h;
    }

    /** Versions written years ago: far older than the hint window and the tombstone grace above. */
    static List<Entry> oldVersions(int n) {
        long ts = 1_500_000_000_000L * 1_000;
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            out.add(i % 10 == 9 ? Entry.tombstone(key, ts + i) : Entry.value(key, ("v" + i).getBytes(StandardCharsets.UTF_8), ts + i,
                    i % 3 == 0 ? 0 : 4_000_000_000_000L).withCopies(i % 4));
        }
        return out;
    }

    @Test
    void aBatchSurvivesItsWireForm() {
        List<Entry> v = oldVersions(25);
        assertThat(HandOverBatch.decode(HandOverBatch.encode(v))).isEqualTo(v);
        assertThat(HandOverBatch.decode(new byte[0])).isEmpty();
        byte[] whole = HandOverBatch.encode(v);
        assertThatThrownBy(() -> HandOverBatch.decode(java.util.Arrays.copyOf(whole, whole.length - 3)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void oldVersionsAreKeptAcrossARestartAndDeliveredWhenTheMemberIsUp() throws Exception {
        HandedOverHints h = start();
        List<Entry> v = oldVersions(50);
        h.hold(member.url, v);
        assertThat(h.counts().waiting()).isEqualTo(50);
        open.remove(h);
        h.close();

        HandedOverHints again = start();
        assertThat(again.counts().waiting()).isEqualTo(50);
        Thread.sleep(3 * HintedHandoff.CHECK_INTERVAL.toMillis());
        assertThat(member.written).isEmpty();
        assertThat(again.counts().dropped()).isZero();
        up.add(member.url);
        eventually(() -> assertThat(member.written).containsExactlyInAnyOrderElementsOf(v));
        eventually(() -> assertThat(again.counts().waiting()).isZero());
        assertThat(again.counts().dropped()).isZero();
    }

    @Test
    void aHandOverForANodeThatIsNotAPeerIsRefused() {
        HandedOverHints h = start();
        assertThatThrownBy(() -> h.hold("http://stranger:1", oldVersions(2))).hasMessageContaining("not kept");
    }
}
