package dht.node.rpc;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seals of one streamed answer's records (a range or join stream) under a cluster secret
 * (docs/wire-format.md, "Sealed streams"). The sender ends each run of records with a seal record:
 * flags {@link #FLAG} (with {@link #END} on the last), then the 32-byte HMAC-SHA256 over
 * {@code seal \n PROOF \n N \n}, the run's record bytes as sent, and one byte, 1 on the last seal
 * and 0 on the others; {@code PROOF} is the request's proof and {@code N} counts the seals from 0.
 *
 * <p>Invariants: a reader hands out a record only once the seal after it holds, and takes a
 * stream as complete only at a good {@link #END} seal. So an on-path writer without the secret
 * can neither add, change, drop nor reorder records, nor pass off a stream it cut short as
 * complete; the count binds each seal to its place and the proof to this one answer.
 *
 * <p>One thread at a time: the sender's worker or the reader's consumer.
 */
public final class StreamSeal {
    /** Flags bit 7: this record is a seal, not an entry (an entry's flags never set it). */
    public static final int FLAG = 0x80;
    /** Flags bit 6, with {@link #FLAG}: the last seal; nothing follows it. */
    public static final int END = 0x40;
    /** The bytes of the MAC after a seal's flags. */
    public static final int MAC_BYTES = 32;

    private final Mac mac;
    private final String requestProof;
    private long sealed;
    private boolean open;

    StreamSeal(SecretKeySpec key, String requestProof) {
        try {
            this.mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
        this.requestProof = requestProof;
    }

    /** Adds record bytes as sent (the buffer's position is left where it was). */
    public void update(ByteBuffer bytes) {
        begin();
        mac.update(bytes.duplicate());
    }

    /** Adds record bytes as received. */
    public void update(byte[] bytes, int offset, int length) {
        begin();
        mac.update(bytes, offset, length);
    }

    /** Sender: writes the seal record of the records added since the last one. */
    public void writeSeal(boolean end, ByteBuf out) {
        out.writeByte(FLAG | (end ? END : 0));
        out.writeBytes(finish(end));
    }

    /** Reader: whether {@code given} seals the records added since the last seal, as its flags say. */
    public boolean holds(boolean end, byte[] given) {
        return MessageDigest.isEqual(finish(end), given);
    }

    private byte[] finish(boolean end) {
        begin();
        mac.update((byte) (end ? 1 : 0));
        open = false;
        sealed++;
        return mac.doFinal();
    }

    private void begin() {
        if (open) return;
        open = true;
        mac.update(("seal\n" + requestProof + "\n" + sealed + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
