package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.StoreOptions;
import org.junit.jupiter.api.Test;

/**
 * The storage settings a node takes from -D system properties: absent means the default, a bad value
 * is refused with a message naming the property (bin/dht serve prints it and exits 2), never read as
 * something else.
 */
class ProductionSettingsTest {
    @Test
    void yieldEveryIsTheDefaultWhenUnsetAndAWholeNumberOtherwise() throws Exception {
        assertThat(WithProperty.with(Production.YIELD_EVERY, null, Production::yieldEveryEntries))
                .isEqualTo(StoreOptions.defaults().yieldEveryEntries());
        assertThat(WithProperty.with(Production.YIELD_EVERY, "0", Production::yieldEveryEntries)).isZero();
        assertThat(WithProperty.with(Production.YIELD_EVERY, " 4096 ", Production::yieldEveryEntries)).isEqualTo(4096);
        for (String bad : new String[] {"x", "-1", "1.5", "", "3000000000"}) {
            assertThatThrownBy(() -> WithProperty.with(Production.YIELD_EVERY, bad, Production::yieldEveryEntries))
                    .as(bad).isInstanceOf(BadSettingException.class).hasMessageContaining("-Ddht.storage.yieldEvery");
        }
    }

    @Test
    void compactionRateIsUnlimitedWhenUnsetAndMebibytesPerSecondOtherwise() throws Exception {
        assertThat(WithProperty.with(Production.COMPACTION_MBPS, null, Production::compactionBytesPerSecond)).isZero();
        assertThat(WithProperty.with(Production.COMPACTION_MBPS, "50", Production::compactionBytesPerSecond))
                .isEqualTo(50L << 20);
        assertThat(WithProperty.with(Production.COMPACTION_MBPS, "1048576", Production::compactionBytesPerSecond))
                .isEqualTo(1L << 40); // the largest allowed, far from overflowing once shifted to bytes
        // Before, Long.getLong read these as no limit, a negative rate or an overflowed one, without a word.
        for (String bad : new String[] {"fast", "-5", "2.5", "1048577", "99999999999999"}) {
            assertThatThrownBy(() -> WithProperty.with(Production.COMPACTION_MBPS, bad, Production::compactionBytesPerSecond))
                    .as(bad).isInstanceOf(BadSettingException.class).hasMessageContaining("-Ddht.storage.compactionMBps");
        }
    }

    /** The hint to open without missing files is given only where that setting would open the store. */
    @Test
    void theHintToAcceptMissingFilesComesOnlyWhenItWouldHelp(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir,
                                                            @org.junit.jupiter.api.io.TempDir java.nio.file.Path elsewhere) throws Exception {
        NodeConfig config = TestNode.config(TestPorts.free(), dir, 16, 1024, 1024, 1024);
        try (var store = Production.openStore(config)) {
            store.put("k".getBytes(), "v".getBytes(), 1);
        }
        java.nio.file.Path log;
        try (var files = java.nio.file.Files.list(dir)) {
            log = files.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        }
        java.nio.file.Files.move(log, elsewhere.resolve("away.log"));
        assertThatThrownBy(() -> Production.openStore(config)).isInstanceOf(dht.storage.MissingFilesException.class)
                .hasMessageContaining("-D" + Production.ACCEPT_MISSING_TABLES + "=true");
        java.nio.file.Files.move(elsewhere.resolve("away.log"), log);
        try (var store = Production.openStore(config)) {
            assertThat(store.get("k".getBytes())).isNotNull();
        }
        java.nio.file.Files.delete(dir.resolve("MANIFEST"));
        assertThatThrownBy(() -> Production.openStore(config)).isInstanceOf(dht.storage.MissingFilesException.class)
                .hasMessageContaining("no MANIFEST").hasMessageNotContaining(Production.ACCEPT_MISSING_TABLES);
    }
}
