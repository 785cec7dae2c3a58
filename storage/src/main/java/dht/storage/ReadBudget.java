package dht.storage;

/**
 * Bounds the heap that point reads take for the values they return. A caller that keeps values
 * until a slow consumer takes them (an HTTP answer waiting for its client) passes one to
 * {@link Store#get(byte[], ReadBudget)}: the engine reserves each value's length before it copies
 * the value onto the heap, so a value that the budget cannot take is never allocated, and it gives
 * back the reservation of every version it read and then discarded (an older one of the same key).
 *
 * <p>Invariant: after {@code get} returns, exactly the returned value's length is reserved for that
 * call (nothing for a tombstone or a miss); the caller owns that reservation and gives it back once
 * it is done with the value. After {@code get} throws, nothing is reserved for the call.
 * Implementations must be thread-safe: reads run on many threads at once.
 *
 * <p>Scans ({@link Store#scan(byte[], byte[], ReadBudget)}) reserve only what they decompress onto
 * the heap, and give it back themselves, at the latest when the scan is closed.
 */
public interface ReadBudget {
    /** A budget that takes everything: the plain {@link Store#get(byte[])}. */
    ReadBudget UNLIMITED = new ReadBudget() {
        @Override
        public boolean tryReserve(int bytes) {
            return true;
        }

        @Override
        public void release(int bytes) {
        }
    };

    /** Reserves {@code bytes} for a value about to be copied; false, with nothing reserved, if they are not available now. */
    boolean tryReserve(int bytes);

    /** Gives back a reservation made by {@link #tryReserve}. */
    void release(int bytes);
}
