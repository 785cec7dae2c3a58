package dht.node.rpc;

/**
 * Told how each call to a peer ended: answered (any HTTP status), failed, or timed out, with the
 * time from the call's start; and of calls refused without being sent because the peer is believed
 * down. One {@link Peer} per peer is resolved once, so that the call path looks nothing up. Runs on
 * event loops: must not block and should not allocate.
 */
public interface PeerCallMeter {
    /** The meters of one peer. */
    interface Peer {
        void answered(long nanos);

        void failed(long nanos);

        void timedOut(long nanos);

        void refused();
    }

    /** The meters of the peer at {@code url}, registered now if they are not yet. */
    Peer peer(String url);

    /**
     * The peer left the membership: its meters stop being reported (a scrape no longer lists it),
     * and a later {@link #peer} of the same URL (it joined again) registers new ones.
     */
    default void retire(String url) {
    }

    Peer NO_PEER = new Peer() {
        @Override
        public void answered(long nanos) {
        }

        @Override
        public void failed(long nanos) {
        }

        @Override
        public void timedOut(long nanos) {
        }

        @Override
        public void refused() {
        }
    };

    PeerCallMeter NONE = url -> NO_PEER;
}
