package dht.storage;

import java.util.Iterator;

/** A lazy iterator that holds resources (table references) until closed. Closing twice is harmless. */
public interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {
    @Override
    void close();
}
