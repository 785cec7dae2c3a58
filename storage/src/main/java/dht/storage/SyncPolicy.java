package dht.storage;

/**
 * When a write-ahead log record reaches stable storage relative to the write's acknowledgement.
 *
 * <p>{@link #EVERY_WRITE} (the default): the log is fsynced before the write returns; concurrent
 * writers share one write and one fsync (group commit). Survives a process kill and a power loss.
 *
 * <p>{@link #PERIODIC}: the record is handed to the OS with write() before the write returns and
 * the log is fsynced every {@link StoreOptions#syncIntervalMillis()}. Survives a process kill
 * (SIGKILL: the page cache belongs to the kernel); a power loss or kernel crash may lose the writes
 * of the last interval.
 */
public enum SyncPolicy {
    EVERY_WRITE,
    PERIODIC
}
