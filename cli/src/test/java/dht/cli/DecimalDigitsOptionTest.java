package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/**
 * The counts of the key commands take decimal digits only, as the HTTP API does: a sign or another
 * script's digits, which Java's parsing would take (and the node refuses), is bad usage before
 * anything is sent (a black-box tester's finding: {@code put --ttl +5} and {@code --ttl ５} were sent).
 */
class DecimalDigitsOptionTest {
    @Test
    void aSignOrAnotherScriptsDigitsIsBadUsage() {
        for (String bad : new String[] {"+5", "\uFF15", "5.0", "1e3", " 5", "", "-1", "99999999999999999999"}) {
            assertThatThrownBy(() -> Main.commandLine().parseArgs("put", "--ttl", bad, "k", "v")).as("--ttl %s", bad)
                    .isInstanceOf(ParameterException.class);
            assertThatThrownBy(() -> Main.commandLine().parseArgs("get", "--ack", bad, "k")).as("--ack %s", bad)
                    .isInstanceOf(ParameterException.class);
            assertThatThrownBy(() -> Main.commandLine().parseArgs("get", "--from", bad, "k")).as("--from %s", bad)
                    .isInstanceOf(ParameterException.class);
            assertThatThrownBy(() -> Main.commandLine().parseArgs("scan", "--ack", bad, "a")).as("scan --ack %s", bad)
                    .isInstanceOf(ParameterException.class);
        }
    }

    @Test
    void digitsAreTakenLeadingZerosIncluded() {
        assertThat(Main.commandLine().parseArgs("put", "--ttl", "0005", "k", "v").errors()).isEmpty();
        assertThat(Main.commandLine().parseArgs("get", "--ack", "2", "--from", "03", "k").errors()).isEmpty();
    }
}
