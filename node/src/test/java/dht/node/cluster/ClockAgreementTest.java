package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node coordinates no client write while most of the peers it heard from show its clock off the
 * same way, by more than the max offset (500 ms here): a black-box tester's node two hours behind
 * had its acknowledged writes lose to older ones, and one 15 s ahead overwrote later 3/3 writes.
 */
class ClockAgreementTest {
    private static final long MS = 1_000;
    private static final long T = 5_000_000_000L; // a nanoTime
    private static final List<String> MEMBERS = List.of("self", "a", "b");
    private final ClockAgreement agreement = new ClockAgreement(500 * MS);

    @Test
    void aClockBehindMostPeersRefusesWrites() {
        long now = 1_000_000 * MS;
        agreement.heard("a", now + 7_200_000 * MS, now - MS, now, T);
        agreement.heard("b", now, now - MS, now, T);
        assertThat(agreement.offReason(MEMBERS, T)).as("one of two peers: not a majority").isNull();
        agreement.heard("b", now + 7_200_000 * MS, now - MS, now, T);
        assertThat(agreement.offReason(MEMBERS, T)).contains("behind 2 of the 2 peers");
        assertThat(agreement.offReason(MEMBERS, T + 10 * ClockAgreement.WINDOW_NANOS))
                .as("nothing heard for ten minutes: the clock has not come right by itself").contains("behind 2 of the 2 peers");
    }

    @Test
    void aPeerDownLeavesTheOthersToJudge() {
        long now = 1_000_000 * MS;
        // b was last heard long ago (down); a, the only one heard, shows this clock two hours behind
        agreement.heard("b", now, now - MS, now, T - ClockAgreement.WINDOW_NANOS - 1);
        agreement.heard("a", now + 7_200_000 * MS, now - MS, now, T);
        assertThat(agreement.offReason(MEMBERS, T)).contains("behind 1 of the 1 peers");
    }

    @Test
    void aPeerThatAgreedLongAgoNoLongerVouches() {
        long now = 1_000_000 * MS;
        agreement.heard("a", now, now - MS, now, T);
        agreement.heard("b", now, now - MS, now, T);
        agreement.heard("a", now + 3_600_000 * MS, now - MS, now, T + ClockAgreement.WINDOW_NANOS);
        assertThat(agreement.offReason(MEMBERS, T + ClockAgreement.WINDOW_NANOS))
                .as("b's agreeing reading still counts").isNull();
        assertThat(agreement.offReason(MEMBERS, T + ClockAgreement.WINDOW_NANOS + 1)).contains("behind 1 of the 1 peers");
        agreement.heard("a", now, now - MS, now, T + 2 * ClockAgreement.WINDOW_NANOS);
        assertThat(agreement.offReason(MEMBERS, T + 2 * ClockAgreement.WINDOW_NANOS)).as("a agrees again").isNull();
    }

    @Test
    void aClockAheadOfMostPeersRefusesWrites() {
        long now = 1_000_000 * MS;
        agreement.heard("a", now - 15_000 * MS, now - MS, now, T);
        agreement.refusedMine("b", T);
        assertThat(agreement.offReason(MEMBERS, T)).contains("ahead of 2 of the 2 peers");
        agreement.heard("b", now, now - MS, now, T); // b's reading agrees again (NTP)
        assertThat(agreement.offReason(MEMBERS, T)).isNull();
    }

    @Test
    void aSlowAnswerIsNoClockBehind() {
        long now = 1_000_000 * MS;
        // both peers read their clocks just after the call went out; the answers came 3 s later
        agreement.heard("a", now - 2_999 * MS, now - 3_000 * MS, now, T);
        agreement.heard("b", now - 2_999 * MS, now - 3_000 * MS, now, T);
        assertThat(agreement.offReason(MEMBERS, T)).isNull();
    }

    @Test
    void oneBadPeerDoesNotStopTheOthers() {
        long now = 1_000_000 * MS;
        // a's clock is an hour ahead: b and this node both see it, and neither refuses
        agreement.heard("a", now + 3_600_000 * MS, now - MS, now, T);
        agreement.heard("b", now, now - MS, now, T);
        assertThat(agreement.offReason(MEMBERS, T)).isNull();
        assertThat(agreement.offReason(List.of("self"), T)).as("a node alone").isNull();
    }
}
