package dht.node.rpc;

import dht.node.cluster.MerkleTree;
import dht.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Writes the seed corpus of the internal protocol's fuzz tests: messages made by the real
 * encoders, for the fuzzer to mutate, where Jazzer looks for them,
 * {@code <resources>/dht/node/rpc/<TestClass>Inputs/<testMethod>/}. Run from the repository root
 * (docs/fuzzing.md):
 * {@code mvn -B -q -pl node test-compile exec:java -Dexec.classpathScope=test -Dexec.mainClass=dht.node.rpc.RpcFuzzSeeds -Dexec.args=node/src/test/resources}
 */
public final class RpcFuzzSeeds {
    private RpcFuzzSeeds() {}

    public static void main(String[] args) throws IOException {
        Path rpc = Path.of(args.length > 0 ? args[0] : "src/test/resources").resolve("dht/node/rpc");
        batch(rpc.resolve("ReplicaBatchFuzzTestInputs/decodesOrFailsAsMalformed"));
        scan(rpc.resolve("PeerScanStreamFuzzTestInputs/readsWholeRecordsOrFailsClearly"));
        scan(rpc.resolve("PeerScanStreamFuzzTestInputs/sealedStreamsHandOutOnlyProvenRecords"));
        tree(rpc.resolve("TreeWireFuzzTestInputs/decodesOrFailsAsIllegalArgument"));
        uris(rpc.resolve("InternalProtocolFuzzTestInputs/decodesOrGivesNull"));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static final List<Entry> ENTRIES = List.of(Entry.value(b("key"), b("value"), 1),
            Entry.tombstone(b("gone"), 2), Entry.value(b("e"), new byte[0], 3),
            Entry.value(new byte[] {0, (byte) 0xFF}, b("x"), -4), Entry.value(b("ttl"), b("v"), 5, 1_700_000_000_000L));

    private static void batch(Path out) throws IOException {
        Files.createDirectories(out);
        Files.write(out.resolve("one-get"), ReplicaBatch.encodeOps(List.of(ReplicaBatch.Op.read(b("key")))));
        Files.write(out.resolve("writes"), ReplicaBatch.encodeOps(ENTRIES.stream().map(ReplicaBatch.Op::write).toList()));
        Files.write(out.resolve("mixed"), ReplicaBatch.encodeOps(List.of(ReplicaBatch.Op.read(b("a")),
                ReplicaBatch.Op.write(ENTRIES.get(0)), ReplicaBatch.Op.write(ENTRIES.get(1)))));
        Files.write(out.resolve("results"), ReplicaBatch.encodeResults(List.of(ReplicaBatch.Result.of(ENTRIES.get(4)),
                ReplicaBatch.Result.of(ENTRIES.get(1)), ReplicaBatch.Result.of(null), ReplicaBatch.Result.WRITTEN_RESULT,
                ReplicaBatch.Result.ASK_ALONE_RESULT, ReplicaBatch.Result.failed("disk full"))));
    }

    private static void scan(Path out) throws IOException {
        Files.createDirectories(out);
        Files.write(out.resolve("empty"), new byte[0]);
        ByteBuf buf = Unpooled.buffer();
        for (Entry e : ENTRIES) ScanRecord.write(e, buf);
        Files.write(out.resolve("records"), Arrays.copyOf(buf.array(), buf.writerIndex()));
    }

    private static void tree(Path out) throws IOException {
        Files.createDirectories(out);
        Files.write(out.resolve("page"), TreeWire.encodePage(ENTRIES));
        BitSet leaves = new BitSet();
        leaves.set(0);
        leaves.set(7);
        leaves.set(MerkleTree.LEAVES - 1);
        Files.write(out.resolve("leaves"), TreeWire.encodeLeaves(leaves));
    }

    private static void uris(Path out) throws IOException {
        Files.createDirectories(out);
        Files.write(out.resolve("entity"), b(InternalProtocol.entityUri(new byte[] {'k', 0, (byte) 0xFF, ' ', '%'})));
        Files.write(out.resolve("scan"), b(InternalProtocol.scanUri(b("a b"), b("z+"))));
        Files.write(out.resolve("scan-limit"), b(InternalProtocol.scanUri(new byte[] {'a', 0}, null, 100)));
        Files.write(out.resolve("tree-page"), b(TreeWire.pageUri("http://127.0.0.1:8080", 3, b("start"))));
    }
}
