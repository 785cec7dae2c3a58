package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's record of added nodes, and the status fields it reads to know a node is a member. */
class AddedNodesTest {
    @TempDir
    Path tmp;

    @Test
    void portsAreKeptSortedOnceEachAndSurviveANewReader() throws Exception {
        AddedNodes added = new AddedNodes(tmp);
        assertThat(added.ports()).isEmpty();
        added.add(8084);
        added.add(8083);
        added.add(8084);
        assertThat(new AddedNodes(tmp).ports()).containsExactly(8083, 8084);
        added.remove(8083);
        added.remove(9999);
        assertThat(new AddedNodes(tmp).ports()).containsExactly(8084);
        assertThat(Files.readString(tmp.resolve(AddedNodes.NAME))).startsWith("# ").contains("\n8084\n");
        assertThat(tmp.resolve(AddedNodes.NAME + ".tmp")).doesNotExist();
    }

    @Test
    void aLineThatIsNotAPortIsAnErrorNamingTheFile() throws Exception {
        Files.writeString(tmp.resolve(AddedNodes.NAME), "8083\nnot-a-port\n");
        assertThatThrownBy(() -> new AddedNodes(tmp).ports()).isInstanceOf(IOException.class)
                .hasMessageContaining(AddedNodes.NAME).hasMessageContaining("'not-a-port' is not a port");
        Files.writeString(tmp.resolve(AddedNodes.NAME), "70000\n");
        assertThatThrownBy(() -> new AddedNodes(tmp).ports()).hasMessageContaining("70000 is not a port");
    }

    @Test
    void statusListsAndNumbersAreReadByName() {
        String body = "{\"node\":\"http://a:1\",\"pid\":42,\"members\":[\"http://a:1\",\"http://b:2\"],\"membershipVersion\":3,"
                + "\"joining\":[],\"rebalance\":{\"bytesScanned\":10,\"totalBytes\":-1}}";
        assertThat(StatusProbe.urls(body, "members")).containsExactly("http://a:1", "http://b:2");
        assertThat(StatusProbe.urls(body, "joining")).isEmpty();
        assertThat(StatusProbe.urls(body, "leaving")).isEmpty();
        assertThat(StatusProbe.number(body, "bytesScanned")).isEqualTo(10);
        assertThat(StatusProbe.number(body, "totalBytes")).isEqualTo(-1);
        assertThat(StatusProbe.isOf(body, 42)).isTrue();
        assertThat(StatusProbe.isOf(body, 4)).isFalse();
        assertThat(StatusProbe.isOf(null, 42)).isFalse();
    }
}
