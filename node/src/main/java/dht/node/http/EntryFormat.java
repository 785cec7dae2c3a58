package dht.node.http;

import dht.node.rpc.ScanRecord;
import dht.storage.Entry;
import io.netty.buffer.ByteBuf;

/**
 * How a scan writes entries. {@link #PUBLIC} is the contract's {@code key \n value}, one HTTP chunk
 * per entry, tombstones and values expired by this node's clock skipped. {@link #WIRE} is the
 * internal range stream's {@link ScanRecord}, tombstones, timestamps and expiries included; its
 * chunk boundaries carry no meaning.
 */
public enum EntryFormat {
    PUBLIC {
        @Override
        boolean includes(Entry e) {
            return !e.isTombstone() && !e.isExpired(System.currentTimeMillis());
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
        @Override
        boolean includes(Entry e) {
            return true;
        }

        @Override
        int size(Entry e) {
            return ScanRecord.size(e);
        }

        @Override
        void write(Entry e, ByteBuf out) {
            ScanRecord.write(e, out);
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
