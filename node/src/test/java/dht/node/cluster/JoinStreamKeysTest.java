package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which member sends which key to a joining node: every key the joiner gains is sent by exactly
 * one member, the old replica it displaces, and no member sends a key the joiner does not gain.
 */
class JoinStreamKeysTest {
    static final String JOINER = "http://j:9";

    private static List<String> members(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add("http://m" + i + ":" + (1000 + i));
        return out;
    }

    private static byte[] key(int k) {
        return ("key" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static void checkEachGainedKeySentOnceByTheDisplacedReplica(int memberCount, int replicationFactor) {
        Membership m = Membership.initial(members(memberCount), replicationFactor).withJoining(JOINER);
        Placement before = new Placement(m.members());
        Placement after = new Placement(m.owners());
        List<JoinStreamKeys> senders = new ArrayList<>();
        for (String s : m.members()) senders.add(JoinStreamKeys.of(m, s, JOINER));
        int gained = 0;
        for (int k = 0; k < 20_000; k++) {
            byte[] key = key(k);
            List<String> next = after.replicas(key, replicationFactor);
            List<String> sentBy = new ArrayList<>();
            for (int i = 0; i < senders.size(); i++) if (senders.get(i).sends(key)) sentBy.add(m.members().get(i));
            if (!next.contains(JOINER)) {
                assertThat(sentBy).as("key%d, not gained by the joiner", k).isEmpty();
                continue;
            }
            gained++;
            List<String> displaced = new ArrayList<>(before.replicas(key, replicationFactor));
            displaced.removeAll(next);
            assertThat(sentBy).as("key%d's senders", k).isEqualTo(displaced).hasSize(1);
        }
        // The joiner gains about replicationFactor / (members + 1) of the keys.
        double share = (double) replicationFactor / (memberCount + 1);
        assertThat(gained).isBetween((int) (20_000 * share * 0.9), (int) (20_000 * share * 1.1));
    }

    @Test
    void threeMembersEveryKeyOnEachOneSenderPerGainedKey() {
        checkEachGainedKeySentOnceByTheDisplacedReplica(3, 3);
    }

    @Test
    void fiveMembersTwoCopiesOneSenderPerGainedKey() {
        checkEachGainedKeySentOnceByTheDisplacedReplica(5, 2);
    }

    @Test
    void aLoneNodeSendsEveryKeyTheSecondGains() {
        checkEachGainedKeySentOnceByTheDisplacedReplica(1, 1);
    }

    @Test
    void whereTheJoinerDisplacesNoOneEveryOldReplicaSends() {
        // Two members, three copies once the third joins: every key gains the joiner, no one drops out.
        Membership m = new Membership(2, members(2), List.of(JOINER), List.of(), 3);
        for (int k = 0; k < 1_000; k++) {
            for (String s : m.members()) assertThat(JoinStreamKeys.of(m, s, JOINER).sends(key(k))).isTrue();
        }
    }

    @Test
    void aVersionWrittenForMoreCopiesThanTheFactorIsSentOnceWhereverTheJoinerIsAmongThem() {
        // Five members, factor 2; versions written with from=3: judged on their first three nodes.
        Membership m = Membership.initial(members(5), 2).withJoining(JOINER);
        Placement before = new Placement(m.members());
        Placement after = new Placement(m.owners());
        int gained = 0;
        for (int k = 0; k < 5_000; k++) {
            dht.storage.Entry wide = dht.storage.Entry.value(key(k), new byte[] {1}, 1, 0).withCopies(3);
            List<String> next = after.replicas(key(k), 3);
            List<String> sentBy = new ArrayList<>();
            for (String s : m.members()) if (JoinStreamKeys.of(m, s, JOINER).sends(wide)) sentBy.add(s);
            if (!next.contains(JOINER)) {
                assertThat(sentBy).as("key%d, not among the joiner's", k).isEmpty();
                continue;
            }
            gained++;
            List<String> displaced = new ArrayList<>(before.replicas(key(k), 3));
            displaced.removeAll(next);
            assertThat(sentBy).as("key%d's senders", k).isEqualTo(displaced).hasSize(1);
        }
        assertThat(gained).as("about 3/6 of the keys, not 2/6").isBetween(2_250, 2_750);
    }
    @Test
    void inTheSteadOfAGoneMemberEveryOtherOldReplicaSendsTheKeysItWouldHaveSentAndNoOther() {
        for (int[] shape : new int[][] {{3, 3}, {5, 2}, {5, 3}}) {
            Membership m = Membership.initial(members(shape[0]), shape[1]).withJoining(JOINER);
            Placement before = new Placement(m.members());
            String gone = m.members().getLast();
            JoinStreamKeys its = JoinStreamKeys.of(m, gone, JOINER);
            int covered = 0;
            for (int k = 0; k < 5_000; k++) {
                byte[] key = key(k);
                List<String> expected = new ArrayList<>();
                if (its.sends(key)) {
                    expected.addAll(before.replicas(key, shape[1]));
                    expected.remove(gone);
                    covered++;
                }
                List<String> sentBy = new ArrayList<>();
                for (String s : m.members()) {
                    if (!s.equals(gone) && JoinStreamKeys.insteadOf(m, s, JOINER, gone).sends(key)) sentBy.add(s);
                }
                assertThat(sentBy).as("key%d in the stead of %s, %d members, %d copies", k, gone, shape[0], shape[1])
                        .containsExactlyInAnyOrderElementsOf(expected);
            }
            assertThat(covered).as("keys the gone member sends").isPositive();
        }
    }
}
