package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
import dht.node.cluster.Placement;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real nodes in-process, three copies of each key, anti-entropy off: one member is stopped,
 * another coordinates writes (keeping hints for the stopped one) and then leaves. Its own hints
 * for the stopped member are handed over with the keys that member gains, so once back it holds
 * every key written while it was down, with no read and no anti-entropy to repair it. A member
 * that keeps such a hand-over, and leaves before it has delivered it, passes it on.
 */
class LeaveHandsOverOwnHintsTest {
    static final int KEYS = 120;

    @TempDir
    Path dir;
    InProcessMembers cluster;

    @AfterEach
    void stop() {
        if (cluster != null) cluster.close();
    }

    private NodeConfig config(int i, HintSettings hints) {
        return InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), cluster.urls, 3, null, hints, 0);
    }

    private void assertHoldsEveryKey(String url) throws Exception {
        assertThat(cluster.lackingAfter(Duration.ofSeconds(30), List.of(url), KEYS, k -> "value" + k))
                .as("keys the member that was down still lacks").isEmpty();
    }

    private void leave(String url) throws Exception {
        HttpResponse<String> left = cluster.send(url, "POST", "/internal/v0/membership?op=leave&url=" + url, "");
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
    }

    @Test
    void aMemberKeepingAHandOverPassesItOnWhenItLeavesInTurn() throws Exception {
        cluster = new InProcessMembers(5);
        List<String> urls = cluster.urls;
        // The first leave's keeper: the first of the members that stay, live, in the placement's (URL) order.
        int keeping = IntStream.of(1, 2, 4).boxed().min(Comparator.comparing(urls::get)).orElseThrow();
        // The keeper delivers what it keeps for others one batch at a time, the next batch due in
        // hours: what it keeps stays there until it leaves.
        HintSettings slow = new HintSettings(HintSettings.DEFAULT_WINDOW, HintSettings.DEFAULT_BYTES_PER_PEER, 1);
        cluster.startAll(i -> config(i, i == keeping ? slow : HintSettings.DEFAULTS));
        String keeper = urls.get(keeping);
        String down = urls.get(3);
        cluster.nodes.get(3).close();
        for (int k = 0; k < KEYS; k++) {
            assertThat(cluster.send(urls.get(0), "PUT", "/v0/entity?id=key" + k, "value" + k).statusCode()).isEqualTo(201);
        }
        leave(urls.get(0));
        cluster.nodes.get(0).close();

        // The member comes back and takes the version it missed; the keeper has not delivered all
        // it keeps for it when it leaves in turn.
        cluster.restart(3, config(3, HintSettings.DEFAULTS));
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (cluster.field(down, "membershipVersion") < cluster.field(keeper, "membershipVersion")
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(cluster.field(down, "membershipVersion")).isEqualTo(cluster.field(keeper, "membershipVersion"));
        assertThat(cluster.field(keeper, "handOverHintsWaiting")).as("versions the keeper still keeps for the member")
                .isPositive();
        leave(keeper);
        cluster.nodes.get(keeping).close(); // what it kept would go with it
        // Three members are left, each to hold every key.
        assertHoldsEveryKey(down);
    }

    @Test
    void aLeavingNodeHandsOverItsOwnHintsForTheMemberThatIsDown() throws Exception {
        cluster = new InProcessMembers(4);
        List<String> urls = cluster.urls;
        cluster.startAll(i -> config(i, HintSettings.DEFAULTS));
        String leaving = urls.get(0);
        String down = urls.get(3);
        cluster.nodes.get(3).close();

        Placement before = new Placement(urls);
        int hinted = 0;
        for (int k = 0; k < KEYS; k++) {
            String key = "key" + k;
            assertThat(cluster.send(leaving, "PUT", "/v0/entity?id=" + key, "value" + k).statusCode()).as(key).isEqualTo(201);
            if (before.replicas(key.getBytes(StandardCharsets.UTF_8), 3).contains(down)) hinted++;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (cluster.field(leaving, "hintsWaiting") < hinted && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(cluster.field(leaving, "hintsWaiting")).as("the leaving node's hints for the member that is down")
                .isEqualTo(hinted);

        HttpResponse<String> left = cluster.send(leaving, "POST", "/internal/v0/membership?op=leave&url=" + leaving, "");
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        assertThat(left.body()).contains("laggard=" + down);
        cluster.nodes.get(0).close(); // its process would exit now, its hints with it
        // What the member gains from the leave, and what it missed while down: every key, as the
        // three that stay hold all of them.
        assertThat(cluster.field(urls.get(1), "handOverHintsHeld") + cluster.field(urls.get(2), "handOverHintsHeld"))
                .as("versions kept for the member that is down").isEqualTo(KEYS);

        cluster.restart(3, config(3, HintSettings.DEFAULTS));
        assertHoldsEveryKey(down);
    }
}
