package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A starting node's catch-up ({@link MembershipChanges#catchUp}): it takes the newest version its
 * peers answer within the wait, whatever order they answer in, and a peer that does not answer
 * holds it up no longer than the wait.
 */
class MembershipCatchUpTest {
    private static final Membership V1 = Membership.initial(List.of("http://a", "http://b", "http://c", "http://d"), 3);
    private static final Membership V2 = V1.withJoining("http://e");
    private static final Membership V3 = V2.settled();

    private static MembershipChanges changes(MembershipState state, Map<String, Membership> answers) {
        MembershipTransport transport = new MembershipTransport() {
            @Override
            public byte[] call(String node, String op, String params, byte[] body) throws MembershipChangeException {
                assertThat(op).isEqualTo("get");
                Membership m = answers.get(node);
                if (m == null) {
                    try {
                        Thread.sleep(10_000); // a peer that is starting too: it answers late
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new MembershipChangeException(503, node + " did not answer");
                }
                return m.encode().getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Stored stored(String node) {
                return Stored.UNKNOWN;
            }
        };
        return new MembershipChanges(state, transport, peer -> true);
    }

    @Test
    void aRestartedNodeTakesTheNewestVersionItsPeersAnswerAndWaitsNoLongerForTheSilentOne() {
        MembershipState state = new MembershipState("http://a", V1, null, url -> { });
        // b missed the last commit too, c does not answer, d has it
        MembershipChanges changes = changes(state, Map.of("http://b", V2, "http://d", V3));
        long t0 = System.nanoTime();
        changes.catchUp(500);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(state.current()).isEqualTo(V3);
        assertThat(millis).as("waited for the silent peer no longer than asked").isLessThan(5_000);
    }

    @Test
    void anOlderAnswerChangesNothing() {
        MembershipState state = new MembershipState("http://a", V2, null, url -> { });
        MembershipChanges changes = changes(state, Map.of("http://b", V1, "http://c", V2, "http://d", V1, "http://e", V2));
        changes.catchUp(500);
        assertThat(state.current()).isEqualTo(V2);
    }
}
