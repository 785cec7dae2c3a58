package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node coordinates no client write while most of its peers show its clock off the same way,
 * by more than the max offset (500 ms here): a black-box tester's node two hours behind had its
 * acknowledged writes lose to older ones, and one 15 s ahead overwrote later 3/3 writes.
 */
class ClockAgreementTest {
    private static final long MS = 1_000;
    private static final List<String> MEMBERS = List.of("self", "a", "b");
    private final ClockAgreement agreement = new ClockAgreement(500 * MS);

    @Test
    void aClockBehindMostPeersRefusesWrites() {
        long now = 1_000_000 * MS;
        agreement.heard("a", now + 7_200_000 * MS, now - MS, now);
        assertThat(agreement.offReason(2, MEMBERS, now)).as("one of two peers: not a majority").isNull();
        agreement.heard("b", now + 7_200_000 * MS, now - MS, now);
        assertThat(agreement.offReason(2, MEMBERS, now)).contains("behind 2 of its 2 peers");
        assertThat(agreement.offReason(2, MEMBERS, now + ClockAgreement.WINDOW_MICROS + 1)).as("evidence grows old").isNull();
    }

    @Test
    void aClockAheadOfMostPeersRefusesWrites() {
        long now = 1_000_000 * MS;
        agreement.heard("a", now - 15_000 * MS, now - MS, now);
        agreement.refusedMine("b", now);
        assertThat(agreement.offReason(2, MEMBERS, now)).contains("ahead of 2 of its 2 peers");
        agreement.heard("b", now, now - MS, now); // b's clock agrees again (NTP)
        assertThat(agreement.offReason(2, MEMBERS, now)).isNull();
    }

    @Test
    void aSlowAnswerIsNoClockBehind() {
        long now = 1_000_000 * MS;
        // both peers read their clocks just after the call went out; the answers came 3 s later
        agreement.heard("a", now - 2_999 * MS, now - 3_000 * MS, now);
        agreement.heard("b", now - 2_999 * MS, now - 3_000 * MS, now);
        assertThat(agreement.offReason(2, MEMBERS, now)).isNull();
    }

    @Test
    void oneBadPeerDoesNotStopTheOthers() {
        long now = 1_000_000 * MS;
        // a's clock is an hour ahead: b and this node both see it, and neither refuses
        agreement.heard("a", now + 3_600_000 * MS, now - MS, now);
        agreement.heard("b", now, now - MS, now);
        assertThat(agreement.offReason(2, MEMBERS, now)).isNull();
        assertThat(agreement.offReason(0, List.of("self"), now)).as("a node alone").isNull();
    }
}
