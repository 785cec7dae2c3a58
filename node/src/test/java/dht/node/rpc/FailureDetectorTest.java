package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a node believes of one peer, from the outcomes of its calls. */
class FailureDetectorTest {
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    @Test
    void aPeerDownByRefusalThatTurnsSilentGetsOnlyTheProbe() throws Exception {
        FailureDetector d = new FailureDetector("http://peer", TIMEOUT);
        d.failed(false, new PeerUnavailableException("refused", new ConnectException("Connection refused")));
        assertThat(d.isUp()).isFalse();
        assertThat(d.admit(false)).as("refusing: calls still go, each costs a refused connect").isEqualTo(FailureDetector.Admission.SEND);

        // it came back and froze before it answered anything: calls now time out
        Thread.sleep(TIMEOUT.toMillis() + 20);
        PeerUnavailableException timedOut = new PeerUnavailableException("did not answer within 50 ms", null);
        d.failed(false, timedOut);
        d.failed(false, timedOut);
        assertThat(d.isSilent()).as("silent now, not refusing").isTrue();
        assertThat(d.admit(false)).as("a client's call does not wait out the timeout").isEqualTo(FailureDetector.Admission.REFUSE);
        assertThat(d.admit(true)).as("the probe still tries it").isEqualTo(FailureDetector.Admission.TRIAL);
    }
}
