package dht.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scan of more data than this JVM's heap can hold (the module's tests run with -Xmx64m, node
 * included): it can only pass if entries are read as they arrive and dropped once consumed.
 */
class LargeScanTest {
    private static final int VALUE_BYTES = 1 << 20;
    private static final int ENTRIES = 96;

    @TempDir
    Path dir;

    @Test
    void aScanLargerThanTheHeapIsStreamedEntryByEntry() throws Exception {
        long maxHeap = Runtime.getRuntime().maxMemory();
        assertThat((long) ENTRIES * VALUE_BYTES).isGreaterThan(maxHeap);
        try (RunningNode node = RunningNode.start(dir); DhtClient client = DhtClient.create(node.url())) {
            for (int i = 0; i < ENTRIES; i++) client.put(key(i), value(i));

            long bytes = 0;
            int count = 0;
            try (Stream<Entry> entries = client.scan("big:", "big;")) {
                Iterator<Entry> it = entries.iterator();
                while (it.hasNext()) {
                    Entry e = it.next();
                    assertThat(e.key()).isEqualTo(key(count));
                    assertThat(e.value()).hasSize(VALUE_BYTES);
                    assertThat(e.value()[0]).isEqualTo((byte) count);
                    assertThat(e.value()[VALUE_BYTES - 1]).isEqualTo((byte) count);
                    bytes += e.value().length;
                    count++;
                }
            }

            assertThat(count).isEqualTo(ENTRIES);
            assertThat(bytes).isGreaterThan(maxHeap);
        }
    }

    private static byte[] key(int i) {
        return String.format("big:%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        java.util.Arrays.fill(v, (byte) i);
        return v;
    }
}
