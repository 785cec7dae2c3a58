package dht.node.cluster;

/** Why a hint was dropped instead of delivered, as {@code /v0/status} names it. */
enum HintDrop {
    /** No room: the memory budget, or the peer's bytes on disk. */
    FULL("full"),
    /** Older than the hint window. */
    EXPIRED("expired"),
    /** Older than the tombstone grace: delivering it could bring back a deleted value. */
    GRACE("grace"),
    /** The peer, believed up, kept refusing it. */
    REFUSED("refused"),
    /** Its record could not be read back from its hint file (damaged or removed). */
    LOST("lost"),
    /** The peer is no longer in the cluster (it left or was removed; its keys' new owners got their copies). */
    REMOVED("removed"),
    /**
     * The peer no longer owns the key (a join moved it elsewhere while the peer was down): its copy
     * would stay after its cleanup, one too many, and could outlive a delete.
     */
    NOT_OWNED("notOwned");

    private final String label;

    HintDrop(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }
}
