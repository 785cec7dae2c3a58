package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.testkit.FuzzDeadline;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the internal protocol's key encoding ({@link InternalProtocol}) as a replica reads it from
 * a request target: any target (bytes as the HTTP decoder hands them over, one char each) gives a
 * parameter's bytes or null (missing or malformed), never an exception or an endless loop; and any
 * key bytes, encoded, decode to themselves, also as the {@code id} of an entity URI and the
 * {@code peer} of a tree URI. The seed corpus ({@code InternalProtocolFuzzTestInputs}) holds the
 * URIs a coordinator builds ({@link RpcFuzzSeeds}). See docs/fuzzing.md.
 */
class InternalProtocolFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void decodesOrGivesNull(byte[] data) throws Exception {
        FuzzDeadline.run(FuzzDeadline.FIRST_LOADING_NETTY_SECONDS, () -> {
            String target = new String(data, StandardCharsets.ISO_8859_1);
            InternalProtocol.decode(target);
            byte[] id = InternalProtocol.idOf(target);
            if (id != null) assertThat(id).isNotEmpty();
            InternalProtocol.paramOf(target, "start");
            InternalProtocol.paramOf(target, "end");
            TreeWire.requester(target);
            assertThat(TreeWire.version(target)).isGreaterThanOrEqualTo(-1);

            assertThat(InternalProtocol.decode(InternalProtocol.encode(data))).isEqualTo(data);
            if (data.length > 0) assertThat(InternalProtocol.idOf(InternalProtocol.entityUri(data))).isEqualTo(data);
            String peer = new String(data, StandardCharsets.UTF_8);
            if (!peer.isEmpty()) {
                assertThat(TreeWire.requester(TreeWire.treeUri(peer, 7))).isEqualTo(peer);
                assertThat(TreeWire.version(TreeWire.treeUri(peer, 7))).isEqualTo(7);
            }
        });
    }
}
