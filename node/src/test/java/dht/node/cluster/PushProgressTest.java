package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PushProgressTest {
    @TempDir
    Path dir;

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPushResumesAtItsKeptKeyAndAnyOtherPushAtTheFirst() throws Exception {
        PushProgress p = new PushProgress(dir);
        assertThat(p.resumeAt("leave@2")).as("nothing kept").isEmpty();
        p.at("leave@2", key("key570"));
        PushProgress reopened = new PushProgress(dir);
        assertThat(reopened.resumeAt("leave@2")).isEqualTo(key("key570"));
        assertThat(reopened.resumeAt("leave@3")).as("another version's push").isEmpty();
        assertThat(reopened.resumeAt("removal@2-http://a:1")).as("another kind of push").isEmpty();
        reopened.clear();
        assertThat(new PushProgress(dir).resumeAt("leave@2")).as("once done").isEmpty();
    }

    @Test
    void aFileThatDoesNotReadAsProgressStartsThePushOver() throws Exception {
        PushProgress p = new PushProgress(dir);
        for (String damaged : List.of("", "at leave@2 zz\n", "at leave@2\n", "at leave@2 6b65\nat leave@2 6b66\n", "\u0000\u0000")) {
            Files.writeString(dir.resolve(PushProgress.NAME), damaged);
            assertThat(p.resumeAt("leave@2")).as("%s", damaged).isEmpty();
        }
    }

    @Test
    void entriesSentInBatchesAreCutBeforeTheyWouldPassTheBoundOrAloneWhenLarger() throws Exception {
        byte[] small = new byte[100 << 10];
        byte[] large = new byte[8 << 20];
        List<Entry> entries = List.of(Entry.value(key("a"), small, 1), Entry.value(key("b"), small, 1),
                Entry.value(key("c"), large, 1), Entry.value(key("d"), small, 1), Entry.value(key("e"), small, 1),
                Entry.value(key("f"), small, 1));
        List<List<String>> sent = new java.util.ArrayList<>();
        DataPush.inBatches("http://x:1", entries, (peer, batch, bytes) ->
                sent.add(batch.stream().map(e -> new String(e.key(), StandardCharsets.UTF_8)).toList()));
        assertThat(sent).containsExactly(List.of("a", "b"), List.of("c"), List.of("d", "e"), List.of("f"));
    }

    @Test
    void theOldestUnsentKeyIsTheLeastFirstKeyOfTheBatchesHeldElseTheOneAfterTheLastScanned() {
        Map<String, List<Entry>> batches = new LinkedHashMap<>();
        assertThat(DataPush.oldestUnsent(batches, key("b"))).as("nothing held").isEqualTo(new byte[] {'b', 0});
        batches.put("http://x:1", List.of(Entry.value(key("c"), key("v"), 1), Entry.value(key("d"), key("v"), 2)));
        batches.put("http://y:1", List.of(Entry.value(key("b\u00ff"), key("v"), 1)));
        assertThat(DataPush.oldestUnsent(batches, key("d"))).isEqualTo(key("b\u00ff"));
        assertThat(PushProgress.after(key("b"))).as("the next key in unsigned order")
                .satisfies(a -> assertThat(java.util.Arrays.compareUnsigned(a, key("b"))).isPositive())
                .satisfies(a -> assertThat(java.util.Arrays.compareUnsigned(a, key("b\u0000\u0000"))).isNegative());
    }
}
