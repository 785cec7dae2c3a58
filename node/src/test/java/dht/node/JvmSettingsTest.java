package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node's -D settings: absent is the default, a value the node knows is taken, and anything else
 * is refused with a message naming the setting, before the node starts anything (bin/dht serve
 * prints it in one line and exits 2). Before, some bad values were read as the default without a
 * word, and others failed with a stack trace, some only after the store had been opened.
 */
class JvmSettingsTest {
    private static final String P = "dht.test.setting";

    @Test
    void aWholeNumberIsTakenWithinItsBoundsAndRefusedOtherwise() throws Exception {
        assertThat(WithProperty.with(P, null, () -> JvmSettings.wholeNumber(P, 7, 1, 100, "things"))).isEqualTo(7);
        assertThat(WithProperty.with(P, " 42 ", () -> JvmSettings.wholeNumber(P, 7, 1, 100, "things"))).isEqualTo(42);
        for (String bad : new String[] {"abc", "", "0", "101", "1.5", "-3", "99999999999999999999"}) {
            assertThatThrownBy(() -> WithProperty.with(P, bad, () -> JvmSettings.wholeNumber(P, 7, 1, 100, "things")))
                    .as(bad).isInstanceOf(BadSettingException.class)
                    .hasMessage("-D" + P + " must be a whole number of things from 1 to 100, not '" + bad + "'");
        }
    }

    @Test
    void aChoiceIsOneOfItsValuesInAnyCase() throws Exception {
        assertThat(WithProperty.with(P, null, () -> JvmSettings.oneOf(P, "b", "a", "b"))).isEqualTo("b");
        assertThat(WithProperty.with(P, "A", () -> JvmSettings.oneOf(P, "b", "a", "b"))).isEqualTo("a");
        assertThatThrownBy(() -> WithProperty.with(P, "c", () -> JvmSettings.oneOf(P, "b", "a", "b")))
                .isInstanceOf(BadSettingException.class).hasMessage("-D" + P + " must be a or b, not 'c'");
    }

    @Test
    void aFlagIsTrueOrFalseAndNothingElse() throws Exception {
        assertThat(WithProperty.with(P, null, () -> JvmSettings.flag(P, true))).isTrue();
        assertThat(WithProperty.with(P, "FALSE", () -> JvmSettings.flag(P, true))).isFalse();
        assertThat(WithProperty.with(P, "true", () -> JvmSettings.flag(P, false))).isTrue();
        // Boolean.parseBoolean read "maybe" as false: batching quietly off.
        assertThatThrownBy(() -> WithProperty.with(P, "maybe", () -> JvmSettings.flag(P, true)))
                .isInstanceOf(BadSettingException.class).hasMessageContaining("true or false");
    }

    static List<String> everySetting() {
        return List.of("dht.affinity", "dht.io.poll.micros", "dht.storage.executor", "dht.storage.queue",
                "dht.storage.batch", "dht.storage.threads", "dht.storage.backgroundPriority", "dht.storage.yieldEvery",
                "dht.storage.compactionMBps", "dht.storage.acceptMissingTables", "dht.peer.batch",
                "dht.storage.writeThreads", "dht.hints.bytes");
    }

    @ParameterizedTest
    @MethodSource("everySetting")
    void aBadValueOfAnySettingIsRefusedBeforeTheDataDirectoryIsTouched(String setting, @TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        NodeConfig config = NodeConfig.single(TestPorts.free(), data);
        assertThatThrownBy(() -> WithProperty.with(setting, "bogus", () -> Node.start(config)))
                .isInstanceOf(BadSettingException.class).hasMessageStartingWith("-D" + setting + " must be");
        assertThat(Files.exists(data)).as("the data directory, not created").isFalse();
    }
}
