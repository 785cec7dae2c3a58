package dht.storage;

import java.io.IOException;

/**
 * A store cannot open because files it needs are not in its directory (a table the manifest names,
 * or the manifest itself); the open changed nothing. The message names the files and what to do.
 */
public final class MissingFilesException extends IOException {
    public MissingFilesException(String message) {
        super(message);
    }
}
