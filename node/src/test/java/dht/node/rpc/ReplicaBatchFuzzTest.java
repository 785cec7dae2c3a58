package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.testkit.FuzzDeadline;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Fuzzes the batched point protocol's decoders ({@link ReplicaBatch}), both sides of it: any bytes,
 * as a batch of operations (copied and borrowed) or as its answer, either decode or fail with
 * {@link ReplicaBatch.Malformed}; never another exception, an {@link OutOfMemoryError} or an
 * endless loop. What decodes has one encoding: encoded again, it is the same bytes. The seed
 * corpus ({@code ReplicaBatchFuzzTestInputs}) holds messages made by the encoders
 * ({@link RpcFuzzSeeds}). See docs/fuzzing.md.
 */
class ReplicaBatchFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void decodesOrFailsAsMalformed(byte[] data) throws Exception {
        FuzzDeadline.run(FuzzDeadline.FIRST_LOADING_NETTY_SECONDS, () -> {
            List<ReplicaBatch.Op> ops = null;
            try {
                ops = ReplicaBatch.decodeOps(data);
            } catch (ReplicaBatch.Malformed e) {
                // refused: the documented outcome
            }
            List<ReplicaBatch.Op> borrowed = null;
            try {
                borrowed = ReplicaBatch.decodeOps(ByteBuffer.wrap(data), true);
            } catch (ReplicaBatch.Malformed e) {
                // refused: the documented outcome
            }
            assertThat(borrowed == null).as("borrowing decodes what copying decodes").isEqualTo(ops == null);
            if (ops != null) {
                assertThat(ReplicaBatch.encodeOps(ops)).isEqualTo(data);
                for (int i = 0; i < ops.size(); i++) {
                    ReplicaBatch.Op c = ops.get(i), b = borrowed.get(i);
                    assertThat(b.kind()).isEqualTo(c.kind());
                    assertThat(b.key()).isEqualTo(c.key());
                    assertThat(b.entry().isTombstone()).isEqualTo(c.kind() != ReplicaBatch.PUT);
                    if (c.kind() == ReplicaBatch.PUT) assertThat(b.entry().value()).isEqualTo(c.value());
                }
            }
            int expected = data.length >= 4 ? ByteBuffer.wrap(data).getInt() : 1;
            try {
                List<ReplicaBatch.Result> results = ReplicaBatch.decodeResults(data, expected);
                List<ReplicaBatch.Result> again = ReplicaBatch.decodeResults(ReplicaBatch.encodeResults(results), expected);
                assertThat(again).usingRecursiveFieldByFieldElementComparator().isEqualTo(results);
            } catch (ReplicaBatch.Malformed e) {
                // refused: the documented outcome
            }
        });
    }
}
