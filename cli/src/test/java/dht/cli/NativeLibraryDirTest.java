package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryDirTest {
    @TempDir
    Path tmp;

    @Test
    void aStartRemovesTheDirectoriesOfProcessesNoLongerRunningAndKeepsTheOthers() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path dead = Files.createDirectories(tmp.resolve("dht-native-" + gone.pid() + "-123"));
        Files.writeString(dead.resolve("libnetty_transport_native_epoll_x86_64123.so"), "left by a killed node");
        Path alive = Files.createDirectories(tmp.resolve("dht-native-" + ProcessHandle.current().pid() + "-456"));
        Path notOurs = Files.createDirectories(tmp.resolve("dht-native-x1"));

        Path made = NativeLibraryDir.prepare(tmp, ProcessHandle.current().pid());

        assertThat(dead).doesNotExist();
        assertThat(alive).isDirectory();
        assertThat(notOurs).isDirectory();
        assertThat(made).isNotEqualTo(alive).isDirectory();
    }

    @Test
    void itMakesANewDirectoryOfTheGivenProcessThatOnlyItsOwnerMayEnter() throws Exception {
        Path taken = Files.createDirectories(tmp.resolve("dht-native-4000001-")); // made by someone else first
        Path made = NativeLibraryDir.prepare(tmp, 4_000_001L);
        assertThat(made).isDirectory().isNotEqualTo(taken);
        assertThat(made.getFileName().toString()).startsWith("dht-native-4000001-");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(made))).isEqualTo("rwx------");
        NativeLibraryDir.remove(made);
        assertThat(made).doesNotExist();
    }
}
