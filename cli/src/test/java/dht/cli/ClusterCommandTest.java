package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The restart command the cluster launcher prints must paste into a shell as it is. */
class ClusterCommandTest {
    @Test
    void plainArgumentsStayAsTheyAre() {
        assertThat(ClusterCommand.shellWord("--data")).isEqualTo("--data");
        assertThat(ClusterCommand.shellWord("./cluster-data/node-9082")).isEqualTo("./cluster-data/node-9082");
        assertThat(ClusterCommand.shellWord("http://localhost:9080,http://localhost:9081")).isEqualTo("http://localhost:9080,http://localhost:9081");
    }

    @Test
    void anythingElseIsQuotedForTheShell() throws Exception {
        String odd = "/tmp/my data/it's $HOME";
        String word = ClusterCommand.shellWord(odd);
        assertThat(word).isEqualTo("'/tmp/my data/it'\\''s $HOME'");
        Process echo = new ProcessBuilder("sh", "-c", "printf %s " + word).start();
        assertThat(new String(echo.getInputStream().readAllBytes())).isEqualTo(odd);
        assertThat(ClusterCommand.shellWord("")).isEqualTo("''");
    }
}
