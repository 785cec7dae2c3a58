package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Membership versions, their text form on disk, and where a topology sends a key's reads and writes. */
class MembershipTest {
    @TempDir
    Path dir;

    static final List<String> THREE = List.of("http://c:3", "http://a:1", "http://b:2");

    @Test
    void aChangeMakesTheNextVersionAndKeepsTheReplicationFactor() {
        Membership m = Membership.initial(THREE, 3);
        assertThat(m.members()).containsExactly("http://a:1", "http://b:2", "http://c:3");
        Membership joining = m.withJoining("http://d:4");
        assertThat(joining.version()).isEqualTo(2);
        assertThat(joining.members()).hasSize(3);
        assertThat(joining.owners()).hasSize(4);
        assertThat(joining.changing()).isTrue();
        Membership settled = joining.settled();
        assertThat(settled.version()).isEqualTo(3);
        assertThat(settled.members()).containsExactly("http://a:1", "http://b:2", "http://c:3", "http://d:4");
        assertThat(settled.replicationFactor()).isEqualTo(3);
        assertThatThrownBy(() -> m.withLeaving("http://a:1")).hasMessageContaining("replication factor 3 outside 1..2");
    }

    @Test
    void itSurvivesItsTextFormAndTheFile() throws Exception {
        Membership m = Membership.initial(THREE, 2).withJoining("http://d:4").withLeaving("http://a:1");
        assertThat(Membership.decode(m.encode())).isEqualTo(m);
        MembershipFile f = new MembershipFile(dir);
        assertThat(f.read()).isNull();
        f.write(m);
        f.write(m.settled());
        assertThat(f.read()).isEqualTo(m.settled());
        Files.writeString(dir.resolve(MembershipFile.NAME), "nonsense", StandardCharsets.UTF_8);
        assertThatThrownBy(f::read).hasMessageContaining("is not a membership");
    }

    @Test
    void whileANodeJoinsWritesAlsoGoToItsPendingReplicasAndReadsDoNot() {
        Membership joining = Membership.initial(THREE, 2).withJoining("http://d:4");
        Topology t = new Topology(joining);
        Placement before = new Placement(THREE);
        Placement after = new Placement(joining.owners());
        int pending = 0;
        for (int k = 0; k < 200; k++) {
            byte[] key = ("k" + k).getBytes(StandardCharsets.UTF_8);
            assertThat(t.readTargets(key, 2)).isEqualTo(before.replicas(key, 2));
            List<String> w = t.writeTargets(key, 2);
            assertThat(w).containsAll(before.replicas(key, 2)).containsAll(after.replicas(key, 2));
            assertThat(w).hasSize(after.replicas(key, 2).contains("http://d:4") ? 3 : 2);
            if (w.size() == 3) pending++;
        }
        assertThat(pending).as("about half the keys get the new node among 2 of 4").isBetween(60, 140);
    }

    /**
     * What must survive a crash right after a version is kept (a cleanup owed once a join ends) is
     * written before it: the hook runs while the file still holds the version before, and one that
     * fails does not stop the version.
     */
    @Test
    void hooksRunBeforeTheNewVersionIsKept() throws Exception {
        MembershipFile file = new MembershipFile(dir);
        Membership v1 = Membership.initial(THREE, 3);
        file.write(v1);
        MembershipState state = new MembershipState("http://a:1", v1, file, url -> { });
        List<String> seen = new java.util.ArrayList<>();
        state.beforeKeeping((before, next) -> {
            try {
                seen.add(before.version() + "->" + next.version() + " kept " + file.read().version());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        state.beforeKeeping((before, next) -> {
            throw new IllegalStateException("a failing hook");
        });
        Membership v2 = v1.withJoining("http://d:4");
        assertThat(state.apply(v2)).isTrue();
        assertThat(seen).containsExactly("1->2 kept 1");
        assertThat(file.read()).isEqualTo(v2);
        assertThat(state.apply(v2)).as("not newer: no hook, nothing kept").isFalse();
        assertThat(seen).hasSize(1);
    }

    /** A version used before it may be kept (the end of this node's own leave) is kept only when asked, or when applied again. */
    @Test
    void aVersionAppliedUnkeptIsUsedAtOnceAndKeptOnlyLater() throws Exception {
        MembershipFile file = new MembershipFile(dir);
        Membership v1 = Membership.initial(THREE, 3);
        file.write(v1);
        MembershipState state = new MembershipState("http://a:1", v1, file, url -> { });
        Membership v2 = v1.withJoining("http://d:4");
        assertThat(state.applyUnkept(v2)).isTrue();
        assertThat(state.current()).isEqualTo(v2);
        assertThat(file.read()).as("not kept yet").isEqualTo(v1);
        state.keep();
        assertThat(file.read()).isEqualTo(v2);

        Membership v3 = v2.settled();
        assertThat(state.applyUnkept(v3)).isTrue();
        assertThat(state.apply(v3)).as("already current").isFalse();
        assertThat(file.read()).as("applied again: kept").isEqualTo(v3);
    }
}
