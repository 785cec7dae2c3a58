package dht.node.http;

import dht.storage.Entry;
import io.netty.buffer.ByteBuf;

/**
 * How a scan writes entries. {@link #PUBLIC} is the contract's {@code key \n value}, one HTTP chunk
 * per entry, tombstones skipped. {@link #WIRE} is the internal record format of
 * docs/wire-format.md, tombstones and timestamps included; its chunk boundaries carry no meaning.
 */
public enum EntryFormat {
    PUBLIC {
        @Override
        boolean includes(Entry e) {
            return !e.isTombstone();
        }

        @Override
        int size(Entry e) {
            return e.key().length + 1 + e.value().length;
        }

        @Override
        void write(Entry e, ByteBuf out) {
            out.writeBytes(e.key()).writeByte('\n').writeBytes(e.value());
        }

        @Override
        boolean chunkPerEntry() {
            return true;
        }
    },
    WIRE {
        static final int TOMBSTONE = 1;

        @Override
        boolean includes(Entry e) {
            return true;
        }

        @Override
        int size(Entry e) {
            return 1 + 8 + 4 + e.key().length + 4 + (e.isTombstone() ? 0 : e.value().length);
        }

        @Override
        void write(Entry e, ByteBuf out) {
            out.writeByte(e.isTombstone() ? TOMBSTONE : 0);
            out.writeLong(e.timestamp());
            out.writeInt(e.key().length).writeBytes(e.key());
            if (e.isTombstone()) {
                out.writeInt(0);
            } else {
                out.writeInt(e.value().length).writeBytes(e.value());
            }
        }

        @Override
        boolean chunkPerEntry() {
            return false;
        }
    };

    abstract boolean includes(Entry e);

    abstract int size(Entry e);

    abstract void write(Entry e, ByteBuf out);

    /** Must each entry be its own HTTP chunk? */
    abstract boolean chunkPerEntry();
}
