package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The production store as a node opens it, with the hint to the setting that opens it without missing files. */
class NodeWiringTest {
    /** The hint to open without missing files is given only where that setting would open the store. */
    @Test
    void theHintToAcceptMissingFilesComesOnlyWhenItWouldHelp(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir,
                                                            @org.junit.jupiter.api.io.TempDir java.nio.file.Path elsewhere) throws Exception {
        NodeConfig config = TestNode.config(TestPorts.free(), dir, 16, 1024, 1024, 1024);
        try (var store = NodeWiring.openStore(config)) {
            store.put("k".getBytes(), "v".getBytes(), 1);
        }
        java.nio.file.Path log;
        try (var files = java.nio.file.Files.list(dir)) {
            log = files.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        }
        java.nio.file.Files.move(log, elsewhere.resolve("away.log"));
        assertThatThrownBy(() -> NodeWiring.openStore(config)).isInstanceOf(dht.storage.MissingFilesException.class)
                .hasMessageContaining("-D" + JvmSettings.ACCEPT_MISSING_TABLES + "=true");
        java.nio.file.Files.move(elsewhere.resolve("away.log"), log);
        try (var store = NodeWiring.openStore(config)) {
            assertThat(store.get("k".getBytes())).isNotNull();
        }
        java.nio.file.Files.delete(dir.resolve("MANIFEST"));
        assertThatThrownBy(() -> NodeWiring.openStore(config)).isInstanceOf(dht.storage.MissingFilesException.class)
                .hasMessageContaining("no MANIFEST").hasMessageNotContaining(JvmSettings.ACCEPT_MISSING_TABLES);
    }
}
