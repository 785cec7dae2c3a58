package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The range stream's and a moved batch's request targets, as a replica reads them back. */
class InternalProtocolTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aScanWithoutALimitSendsNone() {
        assertThat(InternalProtocol.scanUri(b("a"), b("b"))).isEqualTo("/internal/v0/entities?start=a&end=b");
        assertThat(InternalProtocol.scanUri(b("a"), b("b"), 0)).isEqualTo("/internal/v0/entities?start=a&end=b");
        assertThat(InternalProtocol.scanUri(new byte[0], null, 0)).isEqualTo("/internal/v0/entities?");
    }

    @Test
    void aLimitFollowsTheRangeWhateverOfItIsGiven() {
        assertThat(InternalProtocol.scanUri(b("a"), b("b"), 7)).isEqualTo("/internal/v0/entities?start=a&end=b&limit=7");
        assertThat(InternalProtocol.scanUri(b("a"), null, 7)).isEqualTo("/internal/v0/entities?start=a&limit=7");
        assertThat(InternalProtocol.scanUri(new byte[0], b("b"), 7)).isEqualTo("/internal/v0/entities?end=b&limit=7");
        assertThat(InternalProtocol.scanUri(new byte[0], null, 7)).isEqualTo("/internal/v0/entities?limit=7");
        String next = InternalProtocol.scanUri(new byte[] {'k', (byte) 0xFF, 0}, null, 2147483647);
        assertThat(InternalProtocol.paramOf(next, "start")).containsExactly('k', 0xFF, 0);
        assertThat(InternalProtocol.paramOf(next, "limit")).isEqualTo(b("2147483647"));
    }

    @Test
    void aJoinStreamNamesTheJoinerAndTheVersionAfterWhereItResumes() {
        String first = InternalProtocol.joinScanUri(new byte[0], "http://localhost:7001", 4, null);
        assertThat(first).isEqualTo("/internal/v0/entities?joiner=http%3A%2F%2Flocalhost%3A7001&version=4");
        String resumed = InternalProtocol.joinScanUri(new byte[] {'k', (byte) 0xFF}, "http://h:1", 12, "http://g:2");
        assertThat(InternalProtocol.paramOf(resumed, "start")).containsExactly('k', 0xFF);
        assertThat(InternalProtocol.paramOf(resumed, "joiner")).isEqualTo(b("http://h:1"));
        assertThat(InternalProtocol.paramOf(resumed, "version")).isEqualTo(b("12"));
        assertThat(InternalProtocol.paramOf(resumed, "instead")).isEqualTo(b("http://g:2"));
        assertThat(InternalProtocol.paramOf(first, "instead")).isNull();
        assertThat(InternalProtocol.paramOf(resumed, "end")).isNull();
    }

    @Test
    void aBatchAMoveSendsNamesItsChangeAndAnyOtherIsUnmarked() {
        assertThat(InternalProtocol.batchUri(0)).isEqualTo("/internal/v0/batch");
        assertThat(InternalProtocol.moveOf(InternalProtocol.batchUri(0))).isZero();
        assertThat(InternalProtocol.moveOf(InternalProtocol.batchUri(17))).isEqualTo(17);
        assertThat(InternalProtocol.moveOf("/internal/v0/batch?remove=3")).isZero();
        for (String bad : new String[] {"move=", "move=0", "move=-2", "move=x", "move=%zz", "a=1&move=9999999999999999999"}) {
            assertThat(InternalProtocol.moveOf("/internal/v0/batch?" + bad)).as(bad).isEqualTo(-1);
        }
    }
}
