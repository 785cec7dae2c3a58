package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.rpc.ReplicaBatch.Op;
import dht.node.rpc.ReplicaBatch.Result;
import dht.storage.Entry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The batched point protocol's two messages, as docs/wire-format.md describes them. */
class ReplicaBatchTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Decoded with borrowing, a PUT's value is a view of the message, not a copy; the rest is as without. */
    @Test
    void borrowedValuesAreViewsOfTheMessage() throws Exception {
        byte[] big = new byte[300_000];
        new java.util.Random(3).nextBytes(big);
        List<Op> ops = List.of(Op.read(b("k1")), Op.write(Entry.value(b("k2"), big, 42)), Op.write(Entry.tombstone(b("k3"), 43)),
                Op.write(Entry.value(b("k4"), new byte[0], 44)));
        byte[] encoded = ReplicaBatch.encodeOps(ops);
        ByteBuffer message = ByteBuffer.allocateDirect(encoded.length).put(encoded).flip();
        List<Op> back = ReplicaBatch.decodeOps(message, true);
        assertThat(back).hasSize(4);
        assertThat(back.get(0).kind()).isEqualTo(ReplicaBatch.GET);
        Entry put = back.get(1).entry();
        assertThat(put.isBorrowed()).isTrue();
        assertThat(put.timestamp()).isEqualTo(42);
        assertThat(put.value()).isEqualTo(big);
        assertThat(back.get(2).entry().isTombstone()).isTrue();
        assertThat(back.get(3).entry().value()).isEmpty();
        message.put(encoded.length - 20, (byte) ~message.get(encoded.length - 20)); // in the ops after k2
        assertThat(put.value()).as("a view of the message, not a copy").isEqualTo(big);
        int inValue = 4 + 1 + 4 + 2 + 1 + 4 + 2 + 8 + 8 + 4 + 10; // count, GET k1, PUT k2 head, 10 bytes in
        message.put(inValue, (byte) ~message.get(inValue));
        assertThat(put.value()).as("a view of the message, not a copy").isNotEqualTo(big);
        byte[] truncated = java.util.Arrays.copyOf(encoded, encoded.length - 1);
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(ByteBuffer.wrap(truncated), true)).isInstanceOf(ReplicaBatch.Malformed.class);
    }

    @Test
    void operationsRoundTripInOrder() throws Exception {
        List<Op> ops = List.of(Op.read(b("k1")), Op.write(Entry.value(b("k2"), b("value"), 42, 1_700_000_000_000L).withCopies(3)),
                Op.write(Entry.tombstone(b("k3"), 43)), Op.write(Entry.value(new byte[] {0, (byte) 0xFF}, new byte[0], -1)));
        List<Op> back = ReplicaBatch.decodeOps(ReplicaBatch.encodeOps(ops));
        assertThat(back).hasSize(4);
        for (int i = 0; i < 4; i++) {
            assertThat(back.get(i).kind()).isEqualTo(ops.get(i).kind());
            assertThat(back.get(i).key()).isEqualTo(ops.get(i).key());
            assertThat(back.get(i).timestamp()).isEqualTo(ops.get(i).timestamp());
            assertThat(back.get(i).value()).isEqualTo(ops.get(i).value());
        }
        assertThat(back.get(1).entry().expiry()).as("a PUT's expiry").isEqualTo(1_700_000_000_000L);
        assertThat(back.get(1).entry().copies()).as("and the copies its write asked for").isEqualTo(3);
        assertThat(back.get(3).entry().expiry()).isZero();
        assertThat(back.get(2).entry().isTombstone()).isTrue();
    }

    @Test
    void resultsRoundTripInOrder() throws Exception {
        List<Result> results = List.of(Result.of(Entry.value(b("k"), b("v"), 7, 99).withCopies(2)), Result.of(Entry.tombstone(b("k"), 8)),
                Result.of(null), Result.WRITTEN_RESULT, Result.failed("disk full"), Result.ASK_ALONE_RESULT);
        List<Result> back = ReplicaBatch.decodeResults(ReplicaBatch.encodeResults(results), 6);
        assertThat(back).extracting(Result::status).containsExactly(ReplicaBatch.FOUND, ReplicaBatch.TOMBSTONE,
                ReplicaBatch.NOT_FOUND, ReplicaBatch.WRITTEN, ReplicaBatch.FAILED, ReplicaBatch.ASK_ALONE);
        assertThat(back.get(0).value()).isEqualTo(b("v"));
        assertThat(back.get(0).timestamp()).isEqualTo(7);
        assertThat(Entry.expiryOf(back.get(0).expiry())).as("a found value's expiry").isEqualTo(99);
        assertThat(Entry.copiesOf(back.get(0).expiry())).as("and the copies its write asked for").isEqualTo(2);
        assertThat(back.get(1).timestamp()).isEqualTo(8);
        assertThat(back.get(4).error()).isEqualTo("disk full");
    }

    @Test
    void anAnswerCarriesAtMostItsBudgetOfValuesAndTheRestAreAskedAlone() {
        int third = ReplicaBatch.MAX_ANSWER_VALUE_BYTES / 3;
        Result small = Result.of(Entry.value(b("a"), new byte[third], 1));
        Result huge = Result.of(Entry.value(b("b"), new byte[ReplicaBatch.MAX_ANSWER_VALUE_BYTES + 1], 2));
        java.util.concurrent.atomic.AtomicLong used = new java.util.concurrent.atomic.AtomicLong();
        List<Result> out = new java.util.ArrayList<>();
        for (Result r : List.of(small, huge, small, Result.of(Entry.tombstone(b("c"), 3)), small, small, Result.WRITTEN_RESULT)) {
            out.add(ReplicaBatch.capped(r, used));
        }
        assertThat(out).extracting(Result::status).containsExactly(ReplicaBatch.FOUND, ReplicaBatch.ASK_ALONE,
                ReplicaBatch.FOUND, ReplicaBatch.TOMBSTONE, ReplicaBatch.FOUND, ReplicaBatch.ASK_ALONE, ReplicaBatch.WRITTEN);
        assertThat(used.get()).isEqualTo(3L * third);
    }

    @Test
    void malformedMessagesAreRejectedWhole() {
        byte[] good = ReplicaBatch.encodeOps(List.of(Op.write(Entry.value(b("k"), b("v"), 1)), Op.read(b("j"))));
        for (int cut = 1; cut < good.length; cut++) {
            byte[] truncated = Arrays.copyOf(good, good.length - cut);
            assertThatThrownBy(() -> ReplicaBatch.decodeOps(truncated)).as("cut %d bytes", cut)
                    .isInstanceOf(ReplicaBatch.Malformed.class);
        }
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(Arrays.copyOf(good, good.length + 1)))
                .isInstanceOf(ReplicaBatch.Malformed.class).hasMessageContaining("after the last");
        byte[] badKind = good.clone();
        badKind[4] = 9;
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(badKind)).hasMessageContaining("unknown kind");
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(ByteBuffer.allocate(4).putInt(0).array()))
                .hasMessageContaining("count 0");
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(ByteBuffer.allocate(4).putInt(1 << 30).array()))
                .hasMessageContaining("count");
        byte[] hugeKey = ByteBuffer.allocate(9).putInt(1).put(ReplicaBatch.GET).putInt(Integer.MAX_VALUE).array();
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(hugeKey)).hasMessageContaining("beyond the message");
        byte[] emptyKey = ByteBuffer.allocate(9).putInt(1).put(ReplicaBatch.GET).putInt(0).array();
        assertThatThrownBy(() -> ReplicaBatch.decodeOps(emptyKey)).hasMessageContaining("empty key");
        byte[] results = ReplicaBatch.encodeResults(List.of(Result.WRITTEN_RESULT));
        assertThatThrownBy(() -> ReplicaBatch.decodeResults(results, 2)).hasMessageContaining("1 results for 2");
    }
}
