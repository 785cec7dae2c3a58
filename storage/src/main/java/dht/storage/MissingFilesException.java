package dht.storage;

import java.io.IOException;

/**
 * A store cannot open because files it needs are not in its directory (a table or the log the
 * manifest names, or the manifest itself); the open changed nothing. The message names the files
 * and what to do.
 */
public final class MissingFilesException extends IOException {
    private final boolean acceptable;

    /** @param acceptable whether {@link StoreOptions#acceptMissingTables} would open the store without them */
    public MissingFilesException(String message, boolean acceptable) {
        super(message);
        this.acceptable = acceptable;
    }

    /** Whether opening with {@link StoreOptions#acceptMissingTables} would go on without the missing files. */
    public boolean acceptable() {
        return acceptable;
    }
}
