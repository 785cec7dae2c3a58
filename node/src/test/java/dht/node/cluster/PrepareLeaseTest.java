package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** When a prepared change holds other changes off, and when it stops doing so. */
class PrepareLeaseTest {
    private static final String SELF = "http://x:1";
    private final PrepareLease lease = new PrepareLease();

    @Test
    void aChangesIdNamesItsCoordinator() {
        assertThat(PrepareLease.coordinator("http://a:1/7/123456")).isEqualTo("http://a:1");
        assertThat(PrepareLease.coordinator("https://a.example:8443/1/2")).isEqualTo("https://a.example:8443");
        assertThat(PrepareLease.coordinator("odd")).isEqualTo("odd");
        assertThat(PrepareLease.coordinator("/1")).isEqualTo("/1");
        assertThat(PrepareLease.coordinator("a/1")).isEqualTo("a/1");
    }

    @Test
    void anotherCoordinatorsChangeIsRefusedOverTheSameVersionUntilTheLeaseEnds() throws Exception {
        lease.take("http://a:1/1/5", 3, 1_000, SELF);
        assertThatThrownBy(() -> lease.take("http://b:1/1/9", 3, 1_000 + PrepareLease.LEASE_MILLIS - 1, SELF))
                .isInstanceOf(MembershipChangeException.class)
                .hasMessage(SELF + " has prepared another membership change (coordinated by http://a:1) for up to 1 s more;"
                        + " retry then");
        lease.take("http://a:1/1/5", 3, 2_000, SELF); // the same change again: taken
        lease.take("http://b:1/1/9", 3, 2_000 + PrepareLease.LEASE_MILLIS, SELF);
    }

    @Test
    void itEndsAtItsCommitOrAbortOnlyAtItsVersionsEndAndAtItsCoordinatorsNextChange() throws Exception {
        lease.take("http://a:1/1/5", 3, 0, SELF);
        lease.end("http://b:1/1/9"); // another change's end leaves it
        assertThatThrownBy(() -> lease.take("http://b:1/1/9", 3, 0, SELF)).isInstanceOf(MembershipChangeException.class);
        lease.end("http://a:1/1/5");
        lease.take("http://b:1/1/9", 3, 0, SELF);

        lease.take("http://c:1/2/1", 4, 0, SELF); // over a newer version: b's can no longer commit here
        lease.take("http://c:1/3/1", 4, 0, SELF); // c's next change: its last one is over
        assertThatThrownBy(() -> lease.take("http://b:1/2/1", 4, 0, SELF)).hasMessageContaining("coordinated by http://c:1");
    }
}
