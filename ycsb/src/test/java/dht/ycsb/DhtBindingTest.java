package dht.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.Node;
import dht.node.NodeConfig;
import dht.testkit.TestPorts;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** The dht binding against a real node in this JVM: each operation, then a short workload A. */
class DhtBindingTest {
    @TempDir
    static Path dir;

    private static Node node;
    private static String url;

    @BeforeAll
    static void startNode() throws Exception {
        int port = TestPorts.free();
        node = Node.start(NodeConfig.single(port, dir));
        url = "http://localhost:" + port;
    }

    @AfterAll
    static void stopNode() {
        if (node != null) node.close();
    }

    private static DhtBinding binding() throws Exception {
        DhtBinding db = new DhtBinding();
        Properties p = new Properties();
        p.setProperty("dht.nodes", url);
        db.setProperties(p);
        db.init();
        return db;
    }

    private static Map<String, ByteIterator> fields(String... nameValue) {
        Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) m.put(nameValue[i], new StringByteIterator(nameValue[i + 1]));
        return m;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> m) {
        Map<String, String> s = new HashMap<>();
        m.forEach((k, v) -> s.put(k, v.toString()));
        return s;
    }

    @Test
    void insertReadUpdateDelete() throws Exception {
        DhtBinding db = binding();
        try {
            assertThat(db.insert("usertable", "crud1", fields("f0", "a", "f1", "b"))).isEqualTo(Status.OK);
            Map<String, ByteIterator> all = new HashMap<>();
            assertThat(db.read("usertable", "crud1", null, all)).isEqualTo(Status.OK);
            assertThat(strings(all)).isEqualTo(Map.of("f0", "a", "f1", "b"));

            assertThat(db.update("usertable", "crud1", fields("f1", "B"))).isEqualTo(Status.OK);
            Map<String, ByteIterator> one = new HashMap<>();
            assertThat(db.read("usertable", "crud1", Set.of("f1"), one)).isEqualTo(Status.OK);
            assertThat(strings(one)).isEqualTo(Map.of("f1", "B"));

            assertThat(db.delete("usertable", "crud1")).isEqualTo(Status.OK);
            assertThat(db.read("usertable", "crud1", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
            assertThat(db.update("usertable", "crud1", fields("f1", "C"))).isEqualTo(Status.NOT_FOUND);
        } finally {
            db.cleanup();
        }
    }

    /** The binding reads the answer to its end: only the node's {@code limit} keeps it to four records. */
    @Test
    void scanTakesRecordcountRecordsFromTheStartKeyInKeyOrder() throws Exception {
        DhtBinding db = binding();
        try {
            for (int i = 0; i < 10; i++) {
                assertThat(db.insert("usertable", "scan" + i, fields("n", Integer.toString(i), "pad", "x")))
                        .isEqualTo(Status.OK);
            }
            Vector<HashMap<String, ByteIterator>> result = new Vector<>();
            assertThat(db.scan("usertable", "scan3", 4, Set.of("n"), result)).isEqualTo(Status.OK);
            assertThat(result).extracting(r -> strings(r))
                    .containsExactly(Map.of("n", "3"), Map.of("n", "4"), Map.of("n", "5"), Map.of("n", "6"));
        } finally {
            db.cleanup();
        }
    }

    @Test
    void scanSkipsDeletedRecordsAndReturnsFewerRecordsWhole() throws Exception {
        DhtBinding db = binding();
        try {
            for (int i = 0; i < 8; i++) {
                assertThat(db.insert("usertable", "del" + i, fields("n", Integer.toString(i)))).isEqualTo(Status.OK);
            }
            for (int i : new int[] {1, 2, 4}) assertThat(db.delete("usertable", "del" + i)).isEqualTo(Status.OK);
            Vector<HashMap<String, ByteIterator>> three = new Vector<>();
            assertThat(db.scan("usertable", "del0", 3, null, three)).isEqualTo(Status.OK);
            assertThat(three).extracting(r -> strings(r))
                    .containsExactly(Map.of("n", "0"), Map.of("n", "3"), Map.of("n", "5"));

            // fewer records than asked for from the start key on (no key sorts after "zz"): all of them
            assertThat(db.insert("usertable", "zz1", fields("n", "1"))).isEqualTo(Status.OK);
            assertThat(db.insert("usertable", "zz2", fields("n", "2"))).isEqualTo(Status.OK);
            Vector<HashMap<String, ByteIterator>> rest = new Vector<>();
            assertThat(db.scan("usertable", "zz", 1000, Set.of("n"), rest)).isEqualTo(Status.OK);
            assertThat(rest).extracting(r -> strings(r)).containsExactly(Map.of("n", "1"), Map.of("n", "2"));
        } finally {
            db.cleanup();
        }
    }

    @Test
    void workloadERunsWithoutAFailedOperation() throws Exception {
        Properties p = YcsbRun.workload('e', 1_000, 300);
        p.setProperty("dht.nodes", url);
        int done = YcsbRun.loadAndRun(DhtBinding.class.getName(), p, 2);
        assertThat(done).isEqualTo(300);
        assertThat(YcsbRun.report()).contains("[SCAN], Return=OK")
                .doesNotContain("FAILED").doesNotContain("Return=ERROR");
    }

    @Test
    void workloadARunsWithoutAFailedOperation() throws Exception {
        Properties p = YcsbRun.workload('a', 1_000, 2_000);
        p.setProperty("dht.nodes", url);
        int done = YcsbRun.loadAndRun(DhtBinding.class.getName(), p, 4);
        assertThat(done).isEqualTo(2_000);
        String report = YcsbRun.report();
        assertThat(report).contains("[READ], Return=OK", "[UPDATE], Return=OK", "[INSERT], Return=OK")
                .doesNotContain("FAILED").doesNotContain("Return=ERROR").doesNotContain("Return=NOT_FOUND");
    }
}
