package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.testkit.FuzzDeadline;
import dht.storage.Entry;
import java.util.List;

/**
 * Fuzzes the anti-entropy bodies' decoders ({@link TreeWire}): any bytes, as a page of entries or
 * as a leaf set, either decode or fail with an {@link IllegalArgumentException}, the decoders'
 * documented refusal; never another exception, an {@link OutOfMemoryError} (a length is the
 * peer's claim, not an allocation) or an endless loop. What decodes, encoded and decoded again,
 * is the same. The seed corpus ({@code TreeWireFuzzTestInputs}) holds pages and leaf sets made by
 * the encoders ({@link RpcFuzzSeeds}). See docs/fuzzing.md.
 */
class TreeWireFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void decodesOrFailsAsIllegalArgument(byte[] data) throws Exception {
        FuzzDeadline.run(FuzzDeadline.FIRST_LOADING_NETTY_SECONDS, () -> {
            try {
                List<Entry> page = TreeWire.decodePage(data);
                List<Entry> again = TreeWire.decodePage(TreeWire.encodePage(page));
                assertThat(again).hasSameSizeAs(page);
                for (int i = 0; i < page.size(); i++) {
                    Entry a = page.get(i), b = again.get(i);
                    assertThat(b.key()).isEqualTo(a.key());
                    assertThat(b.timestamp()).isEqualTo(a.timestamp());
                    assertThat(b.isTombstone()).isEqualTo(a.isTombstone());
                    assertThat(b.expiry()).isEqualTo(a.expiry());
                    if (!a.isTombstone()) assertThat(b.value()).isEqualTo(a.value());
                }
            } catch (IllegalArgumentException e) {
                // refused: the documented outcome
            }
            try {
                assertThat(TreeWire.encodeLeaves(TreeWire.decodeLeaves(data))).isEqualTo(data);
            } catch (IllegalArgumentException e) {
                assertThat(data.length).isNotEqualTo(TreeWire.LEAF_SET_BYTES);
            }
        });
    }
}
