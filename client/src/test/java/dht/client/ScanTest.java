package dht.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Range scans against a real node: key order, start inclusive, end exclusive, entries whole. */
class ScanTest {
    @TempDir
    static Path dir;
    static RunningNode node;
    static DhtClient client;

    @BeforeAll
    static void start() throws Exception {
        node = RunningNode.start(dir);
        client = DhtClient.create(node.url());
        for (String k : List.of("b", "a", "c", "d", "ab")) client.put("scan:" + k, "value of " + k);
        client.put("scan:deleted", "x");
        client.delete("scan:deleted");
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (node != null) node.close();
    }

    private static List<String> keys(Stream<Entry> entries) {
        try (entries) {
            return entries.map(Entry::keyString).toList();
        }
    }

    @Test
    void aScanReturnsTheRangeInKeyOrderStartInclusiveEndExclusive() {
        assertThat(keys(client.scan("scan:a", "scan:d"))).containsExactly("scan:a", "scan:ab", "scan:b", "scan:c");
    }

    @Test
    void eachEntryCarriesItsValue() {
        try (Stream<Entry> entries = client.scan("scan:c", "scan:d")) {
            assertThat(entries.toList()).containsExactly(new Entry(DhtClient.utf8("scan:c"), DhtClient.utf8("value of c")));
        }
    }

    @Test
    void withoutAnEndTheScanRunsToTheLastKey() {
        assertThat(keys(client.scan("scan:c", null))).containsExactly("scan:c", "scan:d");
    }

    @Test
    void deletedKeysAreNotReturned() {
        assertThat(keys(client.scan("scan:", "scan;"))).doesNotContain("scan:deleted");
    }

    @Test
    void anEmptyRangeIsAnEmptyStream() {
        assertThat(keys(client.scan("scan:d", "scan:a"))).isEmpty();
        assertThat(keys(client.scan("zzz", null))).isEmpty();
    }

    @Test
    void valuesWithNewlinesAndEmptyValuesComeBackWhole() {
        byte[] multiline = "line 1\nline 2\r\n\n0\r\n\r\n".getBytes(StandardCharsets.UTF_8);
        client.put("frame:1".getBytes(StandardCharsets.UTF_8), multiline);
        client.put("frame:2".getBytes(StandardCharsets.UTF_8), new byte[0]);

        try (Stream<Entry> entries = client.scan("frame:", "frame;")) {
            assertThat(entries.toList()).containsExactly(
                    new Entry(DhtClient.utf8("frame:1"), multiline),
                    new Entry(DhtClient.utf8("frame:2"), new byte[0]));
        }
    }

    /** Split at the first newline, as the API says: an empty key and the rest as the value; the scan goes on. */
    @Test
    void aKeyThatStartsWithANewlineDoesNotEndTheScan() {
        client.put("\nlead".getBytes(StandardCharsets.UTF_8), DhtClient.utf8("v1"));
        client.put("\u000bnext".getBytes(StandardCharsets.UTF_8), DhtClient.utf8("v2"));
        try (Stream<Entry> entries = client.scan("\n", "\u000c")) {
            assertThat(entries.toList()).containsExactly(
                    new Entry(new byte[0], DhtClient.utf8("lead\nv1")),
                    new Entry(DhtClient.utf8("\u000bnext"), DhtClient.utf8("v2")));
        }
    }

    @Test
    void aLimitedScanReturnsTheFirstEntriesAndDeletedKeysDoNotCount() {
        assertThat(keys(client.scan("scan:", null, ScanOptions.defaults().limit(3))))
                .containsExactly("scan:a", "scan:ab", "scan:b");
        for (String k : List.of("a", "b", "c", "d")) client.put("limit:" + k, k);
        client.delete("limit:b");
        client.delete("limit:c");
        assertThat(keys(client.scan("limit:", "limit;", ScanOptions.defaults().limit(2))))
                .containsExactly("limit:a", "limit:d");
        assertThat(keys(client.scan("scan:a", "scan:b", ScanOptions.defaults().local().limit(1))))
                .containsExactly("scan:a");
    }

    @Test
    void aLimitLargerThanTheRangeReturnsItWholeAndTheStreamEndsCleanly() {
        assertThat(keys(client.scan("scan:", "scan;", ScanOptions.defaults().limit(1000))))
                .containsExactly("scan:a", "scan:ab", "scan:b", "scan:c", "scan:d");
        try (ScanIterator it = client.scanIterator(DhtClient.utf8("scan:c"), null, ScanOptions.defaults().limit(50))) {
            List<String> seen = new java.util.ArrayList<>();
            while (it.hasNext()) seen.add(it.next().keyString());
            assertThat(seen).containsExactly("scan:c", "scan:d");
        }
    }

    @Test
    void aLocalScanReadsTheNodesOwnData() {
        assertThat(keys(client.scan("scan:a", "scan:b", ScanOptions.defaults().local())))
                .containsExactly("scan:a", "scan:ab");
    }

    @Test
    void anIteratorClosedHalfWayLeavesTheClientUsable() {
        try (ScanIterator it = client.scanIterator(DhtClient.utf8("scan:"), null, ScanOptions.defaults())) {
            assertThat(it.next().keyString()).isEqualTo("scan:a");
        }

        assertThat(client.getString("scan:a")).contains("value of a");
        assertThat(keys(client.scan("scan:a", "scan:b"))).hasSize(2);
    }

    @Test
    void aBadScanIsRefusedWhenItIsOpened() {
        assertThatThrownBy(() -> client.scan("a", "b", ScanOptions.defaults().ack(2)))
                .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.reason()).contains("ack"));
    }
}
