package dht.node;

import dht.storage.BackgroundPriority;
import dht.storage.StoreOptions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node's -D settings: absent is the default, a value the node knows is taken, and anything else
 * is refused with a message naming the setting (bin/dht serve prints it in one line and exits 2).
 */
class JvmSettingsTest {
    private static final String P = "dht.test.setting";

    @Test
    void aWholeNumberIsTakenWithinItsBoundsAndRefusedOtherwise() throws Exception {
        assertThat(WithProperty.with(P, null, () -> JvmSettings.wholeNumber(P, 7, 1, 100, "things"))).isEqualTo(7);
        assertThat(WithProperty.with(P, " 42 ", () -> JvmSettings.wholeNumber(P, 7, 1, 100, "things"))).isEqualTo(42);
        for (String bad : new String[] {"abc", "", "0", "101", "1.5", "-3", "99999999999999999999"}) {
            assertThatThrownBy(() -> WithProperty.with(P, bad, () -> JvmSettings.wholeNumber(P, 7, 1, 100, "things")))
                    .as(bad).isInstanceOf(BadSettingException.class)
                    .hasMessage("-D" + P + " must be a whole number of things from 1 to 100, not '" + bad + "'");
        }
    }

    /** A misspelt setting would leave the default the operator meant to change, without a word. */
    @Test
    void aDhtPropertyTheNodeDoesNotTakeIsRefusedByName() throws Exception {
        assertThatThrownBy(() -> WithProperty.with("dht.http.idleTimeoutt", "5", () -> {
            JvmSettings.readStrictly();
            return null;
        })).isInstanceOf(BadSettingException.class)
                .hasMessageStartingWith("-Ddht.http.idleTimeoutt is not a setting the node takes (it takes ")
                .hasMessageContaining("-D" + JvmSettings.IDLE_TIMEOUT);
        assertThat(WithProperty.with(JvmSettings.IDLE_TIMEOUT, "5", JvmSettings::readStrictly).idleTimeoutSeconds()).isEqualTo(5);
        // the logging configuration's, documented in the README beside the others
        assertThat(WithProperty.with(JvmSettings.LOG_LEVEL, "DEBUG", JvmSettings::readStrictly)).isNotNull();
        assertThatThrownBy(() -> WithProperty.with(JvmSettings.LOG_LEVEL, "BOGUS", JvmSettings::readStrictly))
                .isInstanceOf(BadSettingException.class).hasMessageContaining("-D" + JvmSettings.LOG_LEVEL + " must be TRACE");
    }

    /** Every {@code -Ddht.*} the README's settings table documents is one the node takes by name. */
    @Test
    void everyDocumentedSettingIsKnown() throws Exception {
        java.util.List<String> documented = java.nio.file.Files.readAllLines(java.nio.file.Path.of("..", "README.md")).stream()
                .filter(l -> l.startsWith("| `-Ddht.")).map(l -> l.substring(5, l.indexOf('`', 5))).toList();
        assertThat(documented).contains(JvmSettings.LOG_LEVEL, JvmSettings.IDLE_TIMEOUT);
        for (String name : documented) {
            WithProperty.with(name, "x", () -> {
                JvmSettings.refuseUnknown();
                return null;
            });
        }
    }

    @Test
    void aChoiceIsOneOfItsValuesInAnyCase() throws Exception {
        assertThat(WithProperty.with(P, null, () -> JvmSettings.oneOf(P, "b", "a", "b"))).isEqualTo("b");
        assertThat(WithProperty.with(P, "A", () -> JvmSettings.oneOf(P, "b", "a", "b"))).isEqualTo("a");
        assertThatThrownBy(() -> WithProperty.with(P, "c", () -> JvmSettings.oneOf(P, "b", "a", "b")))
                .isInstanceOf(BadSettingException.class).hasMessage("-D" + P + " must be a or b, not 'c'");
    }

    @Test
    void aFlagIsTrueOrFalseAndNothingElse() throws Exception {
        assertThat(WithProperty.with(P, null, () -> JvmSettings.flag(P, true))).isTrue();
        assertThat(WithProperty.with(P, "FALSE", () -> JvmSettings.flag(P, true))).isFalse();
        assertThat(WithProperty.with(P, "true", () -> JvmSettings.flag(P, false))).isTrue();
        // Boolean.parseBoolean read "maybe" as false: batching quietly off.
        assertThatThrownBy(() -> WithProperty.with(P, "maybe", () -> JvmSettings.flag(P, true)))
                .isInstanceOf(BadSettingException.class).hasMessageContaining("true or false");
    }

    @Test
    void everySettingIsItsDefaultWhenUnset() {
        Tuning read = JvmSettings.read();
        assertThat(read).isEqualTo(Tuning.defaults());
        assertThat(read.storageThreads()).isEqualTo(64);
        assertThat(read.writeThreads()).isEqualTo(8);
        assertThat(read.storageBatch()).isNull();
        assertThat(read.exitWithParent()).isFalse();
        assertThat(read.joinStreamPriority()).isEqualTo(BackgroundPriority.NORMAL);
    }

    @Test
    void theJoinStreamSendersPriorityTakesEachOfItsNames() throws Exception {
        for (BackgroundPriority p : BackgroundPriority.values()) {
            String name = p.name().toLowerCase(java.util.Locale.ROOT);
            assertThat(WithProperty.with(JvmSettings.JOIN_STREAM_PRIORITY, name, JvmSettings::read).joinStreamPriority())
                    .as(name).isEqualTo(p);
        }
    }

    @Test
    void storeBatchingIsOnUnlessEveryWriteIsSyncedAndAnExplicitSettingDecides(@TempDir Path dir) throws Exception {
        NodeConfig periodic = NodeConfig.single(1, dir);
        NodeConfig everyWrite = new NodeConfig(1, dir, periodic.self(), periodic.cluster(), 1, 1, 1, 1,
                periodic.replicaTimeout(), true, 1024, null, 0, periodic.bodyTimeout(), Tuning.defaults(),
                periodic.compression());
        assertThat(periodic.batchStoreCalls()).isTrue();
        assertThat(everyWrite.batchStoreCalls()).isFalse();
        Tuning on = WithProperty.with(JvmSettings.STORAGE_BATCH, "true", JvmSettings::read);
        assertThat(everyWrite.withTuning(on).batchStoreCalls()).isTrue();
        Tuning off = WithProperty.with(JvmSettings.STORAGE_BATCH, "false", JvmSettings::read);
        assertThat(periodic.withTuning(off).batchStoreCalls()).isFalse();
    }

    @Test
    void yieldEveryIsTheDefaultWhenUnsetAndAWholeNumberOtherwise() throws Exception {
        String p = JvmSettings.YIELD_EVERY;
        assertThat(WithProperty.with(p, null, JvmSettings::read).yieldEvery()).isEqualTo(StoreOptions.defaults().yieldEveryEntries());
        assertThat(WithProperty.with(p, "0", JvmSettings::read).yieldEvery()).isZero();
        assertThat(WithProperty.with(p, " 4096 ", JvmSettings::read).yieldEvery()).isEqualTo(4096);
        for (String bad : new String[] {"x", "-1", "1.5", "", "3000000000"}) {
            assertThatThrownBy(() -> WithProperty.with(p, bad, JvmSettings::read))
                    .as(bad).isInstanceOf(BadSettingException.class).hasMessageContaining("-Ddht.storage.yieldEvery");
        }
    }

    @Test
    void compactionRateIsUnlimitedWhenUnsetAndMebibytesPerSecondOtherwise() throws Exception {
        String p = JvmSettings.COMPACTION_MBPS;
        assertThat(WithProperty.with(p, null, JvmSettings::read).compactionBytesPerSecond()).isZero();
        assertThat(WithProperty.with(p, "50", JvmSettings::read).compactionBytesPerSecond()).isEqualTo(50L << 20);
        // the largest allowed, far from overflowing once shifted to bytes
        assertThat(WithProperty.with(p, "1048576", JvmSettings::read).compactionBytesPerSecond()).isEqualTo(1L << 40);
        for (String bad : new String[] {"fast", "-5", "2.5", "1048577", "99999999999999"}) {
            assertThatThrownBy(() -> WithProperty.with(p, bad, JvmSettings::read))
                    .as(bad).isInstanceOf(BadSettingException.class).hasMessageContaining("-Ddht.storage.compactionMBps");
        }
    }

    static List<String> everySetting() {
        return List.of("dht.affinity", "dht.io.poll.micros", "dht.storage.executor", "dht.storage.queue",
                "dht.storage.batch", "dht.storage.threads", "dht.storage.backgroundPriority", "dht.storage.yieldEvery",
                "dht.storage.compactionMBps", "dht.storage.acceptMissingTables", "dht.peer.batch",
                "dht.storage.writeThreads", "dht.hints.bytes", "dht.exitWithParent", "dht.rebalance.sendPriority",
                "dht.io.transport");
    }

    /** bin/dht serve reads them all before it starts anything (ServeProcessTest checks that the data directory is untouched). */
    @ParameterizedTest
    @MethodSource("everySetting")
    void aBadValueOfAnySettingIsRefusedWithItsName(String setting) {
        assertThatThrownBy(() -> WithProperty.with(setting, "bogus", JvmSettings::read))
                .isInstanceOf(BadSettingException.class).hasMessageStartingWith("-D" + setting + " must be");
    }
}
