package dht.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One version of one key, as the engine stores it: a value or a tombstone, with the timestamp of
 * the write that made it.
 *
 * <p>A value is held either as an array or as a borrowed {@link MemorySegment} (a request body off
 * the heap, a table's mapping, a memtable's arena): a large value then passes from the socket to the
 * log and the memtable, and from the memtable or tables to a new table, without ever being an array
 * on the heap, where each value of half a G1 region or more is a humongous object. A borrowed segment
 * is valid only as long as its owner says: the engine copies what it keeps before {@link Store#write}
 * returns, and entries the engine hands out ({@link Store#get}, {@link Store#scan}) always hold arrays.
 *
 * <p>A value may carry an expiry (docs/storage-format.md, "Expiry"): an absolute instant in epoch
 * milliseconds, fixed once by the write's coordinator, 0 for never. From that instant on, judged by
 * the reading node's clock, the value reads as a tombstone with its own timestamp ({@link #readAt}),
 * so it shadows older versions exactly as a delete at that timestamp would.
 *
 * <p>A version also records how many copies its write asked for (the write's {@code from}, its
 * {@link #copies()}; 0 when not known: a tombstone, or a version written before it was recorded), so
 * that read repair knows which replicas the write targeted. The stored and sent formats carry it in
 * the expiry field's high bits, the <em>expiry word</em> ({@link #expiryWord()}; bits 0-47 the
 * expiry, 48-55 the copies, 56-63 zero): every format that carries an expiry carries it, and one
 * written before it existed reads as 0, not known. Factories taking an expiry take an expiry word.
 *
 * <p>Invariant: {@code array == null && segment == null} exactly when this is a tombstone; a
 * tombstone's expiry and copies are 0; {@code 0 <= expiry < 2^48}, {@code 0 <= copies <= 255}.
 * Arrays are owned by the entry once it is built; callers must not mutate them.
 */
public final class Entry {
    private final byte[] key;
    private final byte[] array;
    private final MemorySegment segment;
    private final long timestamp;
    private final long expiry;
    private final int copies;

    /** The bits of an expiry word that hold the expiry (epoch milliseconds: past the year 10000). */
    public static final long EXPIRY_MASK = (1L << 48) - 1;
    /** The most copies an expiry word records; a write asking for more records 0, not known. */
    public static final int MAX_COPIES = 255;

    private Entry(byte[] key, byte[] array, MemorySegment segment, long timestamp, long expiry, int copies) {
        this.key = key;
        this.array = array;
        this.segment = segment;
        this.timestamp = timestamp;
        this.expiry = expiry;
        this.copies = copies;
    }

    private Entry(byte[] key, byte[] array, MemorySegment segment, long timestamp, long word) {
        this(key, array, segment, timestamp, expiryOf(word), copiesOf(word));
    }

    /** Whether {@code raw} is an expiry word: bits 56-63 zero (so not negative either). */
    public static boolean isExpiryWord(long raw) {
        return raw >>> 56 == 0;
    }

    /** The expiry held in an expiry word; throws if the word is not one. */
    public static long expiryOf(long word) {
        if (!isExpiryWord(word)) throw new IllegalArgumentException("not an expiry word: " + word);
        return word & EXPIRY_MASK;
    }

    /** {@code raw} if it is an expiry word, else 0 (never expires, copies not known): for fields the engine wrote itself. */
    public static long wordOrNever(long raw) {
        return isExpiryWord(raw) ? raw : 0;
    }

    /** The copies held in an expiry word (0: not known). */
    public static int copiesOf(long word) {
        return (int) (word >>> 48) & 0xFF;
    }

    public static Entry value(byte[] key, byte[] value, long timestamp) {
        return value(key, value, timestamp, 0);
    }

    /** A value that reads as absent from {@code expiry} (epoch milliseconds; 0: never) on. */
    public static Entry value(byte[] key, byte[] value, long timestamp, long expiry) {
        if (value == null) throw new IllegalArgumentException("value must not be null; use tombstone()");
        return new Entry(key, value, null, timestamp, checkExpiry(expiry));
    }

    /**
     * A value held in {@code value}, not copied: the caller keeps it valid and unchanged until the
     * entry is no longer used (for {@link Store#write}, until the call returns).
     */
    public static Entry value(byte[] key, MemorySegment value, long timestamp) {
        return value(key, value, timestamp, 0);
    }

    /** The same, with an expiry as for {@link #value(byte[], byte[], long, long)}. */
    public static Entry value(byte[] key, MemorySegment value, long timestamp, long expiry) {
        if (value == null) throw new IllegalArgumentException("value must not be null; use tombstone()");
        if (value.byteSize() > Integer.MAX_VALUE) throw new IllegalArgumentException("value larger than 2 GiB");
        return new Entry(key, null, value, timestamp, checkExpiry(expiry));
    }

    public static Entry tombstone(byte[] key, long timestamp) {
        return new Entry(key, null, null, timestamp, 0, 0);
    }

    /** A negative word is named as such; the constructor refuses any other that is no expiry word. */
    private static long checkExpiry(long word) {
        if (word < 0) throw new IllegalArgumentException("negative expiry " + word);
        return word;
    }

    /**
     * This version recording that its write asked for {@code copies} copies (its {@code from});
     * more than {@link #MAX_COPIES} is recorded as 0, not known. A tombstone records none.
     */
    public Entry withCopies(int copies) {
        if (copies < 0) throw new IllegalArgumentException("negative copies " + copies);
        int c = isTombstone() || copies > MAX_COPIES ? 0 : copies;
        return c == this.copies ? this : new Entry(key, array, segment, timestamp, expiry, c);
    }

    /** How many copies this version's write asked for (its {@code from}); 0 when not known. */
    public int copies() { return copies; }

    /** The expiry and the copies in one word, as the formats store and send them (see the class comment). */
    public long expiryWord() {
        return expiry | (long) copies << 48;
    }

    public byte[] key() { return key; }

    /**
     * The value, or {@code null} for a tombstone. For a value held in a segment this is a new copy
     * on each call: code that can take a segment uses {@link #valueSegment()}.
     */
    public byte[] value() {
        if (array != null || segment == null) return array;
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The value as a segment (a view of the array, for an array), or {@code null} for a tombstone. */
    public MemorySegment valueSegment() {
        if (segment != null) return segment;
        return array == null ? null : MemorySegment.ofArray(array);
    }

    /** The value's length in bytes; 0 for a tombstone. */
    public int valueLength() {
        if (array != null) return array.length;
        return segment == null ? 0 : (int) segment.byteSize();
    }

    /** Whether the value is a borrowed segment, valid only as long as its owner says. */
    public boolean isBorrowed() { return segment != null; }

    /** This entry, or, if its value is borrowed, the same entry with the value copied into an array it owns. */
    public Entry owned() {
        return segment == null ? this : new Entry(key, segment.toArray(ValueLayout.JAVA_BYTE), null, timestamp, expiry, copies);
    }

    public long timestamp() { return timestamp; }

    /** When the value stops being readable, in epoch milliseconds; 0 when it never does (and for a tombstone). */
    public long expiry() { return expiry; }

    /** Whether this is a value whose expiry is at or before {@code nowMillis} (epoch milliseconds). */
    public boolean isExpired(long nowMillis) {
        return expiry != 0 && nowMillis >= expiry;
    }

    /**
     * This version as a read at {@code nowMillis} sees it: an expired value is a tombstone with the
     * value's timestamp (the newest version stays the newest, so no older one comes back); anything
     * else is itself.
     */
    public Entry readAt(long nowMillis) {
        return isExpired(nowMillis) ? tombstone(key, timestamp) : this;
    }

    public boolean isTombstone() { return array == null && segment == null; }

    /**
     * Last write wins: is this version newer than {@code other} (of the same key)? Ties on the
     * timestamp are broken the same way on every replica so that they converge: a tombstone beats a
     * value, and between two values the greater one (as unsigned bytes) wins. The expiry is not
     * compared: one timestamp is one coordinator's write, which carries one expiry everywhere.
     */
    public boolean supersedes(Entry other) {
        if (other == null) return true;
        if (timestamp != other.timestamp) return timestamp > other.timestamp;
        if (isTombstone() != other.isTombstone()) return isTombstone();
        if (isTombstone()) return false;
        if (array != null && other.array != null) return Arrays.compareUnsigned(array, other.array) > 0;
        MemorySegment o = other.valueSegment();
        return Bytes.compare(valueSegment(), o, 0, (int) o.byteSize()) > 0;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Entry e) || timestamp != e.timestamp || expiry != e.expiry || copies != e.copies
                || !Arrays.equals(key, e.key)) {
            return false;
        }
        if (isTombstone() || e.isTombstone()) return isTombstone() == e.isTombstone();
        if (array != null && e.array != null) return Arrays.equals(array, e.array);
        MemorySegment a = valueSegment(), b = e.valueSegment();
        return MemorySegment.mismatch(a, 0, a.byteSize(), b, 0, b.byteSize()) < 0;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + Long.hashCode(timestamp);
    }

    @Override
    public String toString() {
        return "Entry[" + new String(key, java.nio.charset.StandardCharsets.UTF_8) + "@" + timestamp
                + (isTombstone() ? " tombstone" : " " + valueLength() + " bytes") + (expiry != 0 ? " expires " + expiry : "")
                + (copies != 0 ? " copies " + copies : "") + "]";
    }
}
