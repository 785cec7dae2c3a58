package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exit codes and streams of {@code dht} itself, in a real process (System.exit included): asking for
 * help is success, on stdout; naming no mode at all is bad usage, on stderr, like an unknown option.
 * Bad usage is said in one line and a pointer to --help, except with no mode at all, where the usage
 * (the list of modes) is the help needed.
 */
class UsageProcessTest {
    @Test
    void noCommandIsBadUsageWithTheUsageOnStderr() throws Exception {
        DhtRun o = dht();
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).contains("Missing required subcommand").contains("Usage: dht").contains("serve");
    }

    @Test
    void helpIsSuccessWithTheUsageOnStdout() throws Exception {
        for (String help : List.of("--help", "-h", "help")) {
            DhtRun o = dht(help);
            assertThat(o.exitCode()).as(help).isZero();
            assertThat(o.stdout()).as(help).startsWith("Usage: dht").contains("serve");
            assertThat(o.stderr()).as(help).isEmpty();
        }
    }

    @Test
    void anUnknownOptionIsBadUsageAsBefore() throws Exception {
        DhtRun o = dht("--no-such-option");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).isEqualTo("Unknown option: '--no-such-option'" + NL + "Try 'dht --help' for more information." + NL);
    }

    /**
     * A key that starts with '-' is taken for an option; picocli reported only the missing KEY,
     * which left the user guessing. The answer names the option and how to pass such a key.
     */
    @Test
    void aKeyThatLooksLikeAnOptionIsNamedWithTheWayToPassIt() throws Exception {
        DhtRun o = dht("get", "-dash");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).isEqualTo("Unknown option: '-dash' (a KEY that starts with '-' goes after '--': dht get -- -dash)" + NL
                + "Try 'dht get --help' for more information." + NL);
    }

    /**
     * The reason first, then one line saying where the usage is; not the 40 lines of serve's usage,
     * which pushed the reason off the screen (failed before: the usage followed the reason).
     */
    @Test
    void aBadValueIsOneLineAndAPointerToTheHelp() throws Exception {
        DhtRun o = dht("serve", "--max-body", "8MiB");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).isEqualTo("Invalid value for option '--max-body': '8MiB' is not an int" + NL
                + "Try 'dht serve --help' for more information." + NL);
    }

    /**
     * A replica count no cluster accepts is bad usage like one that is not a number, said before
     * any node is asked (the URL here has nothing listening): it was sent, and answered 400, exit 1.
     */
    @Test
    void aReplicaCountNoClusterAcceptsIsBadUsage() throws Exception {
        String dead = "--url=http://127.0.0.1:1";
        for (List<String> args : List.of(List.of("get", "k", "--ack", "0"), List.of("put", "k", "v", "--from=-1"),
                List.of("delete", "k", "--ack", "3", "--from", "2"), List.of("get", "k", "--from", "2", "--ack", "3"),
                List.of("scan", "a", "--ack", "0"))) {
            List<String> all = new ArrayList<>(args);
            all.add(dead);
            DhtRun o = dht(all.toArray(String[]::new));
            assertThat(o.exitCode()).as(args.toString()).isEqualTo(2);
            assertThat(o.stderr()).as(args.toString()).containsPattern("--(ack|from)").endsWith("for more information." + NL)
                    .doesNotContain("cannot reach");
        }
    }

    /** An empty key or range start, which no key can be, is bad usage, said before any node is asked. */
    @Test
    void anEmptyKeyOrStartIsBadUsage() throws Exception {
        for (List<String> args : List.of(List.of("get", ""), List.of("put", "", "v"), List.of("delete", ""),
                List.of("scan", ""), List.of("scan", "a", "--local", "--ack", "1"))) {
            List<String> all = new ArrayList<>(args);
            all.add("--url=http://127.0.0.1:1");
            DhtRun o = dht(all.toArray(String[]::new));
            assertThat(o.exitCode()).as(args.toString()).isEqualTo(2);
            assertThat(o.stderr()).as(args.toString())
                    .endsWith("Try 'dht " + args.getFirst() + " --help' for more information." + NL)
                    .doesNotContain("cannot reach");
        }
    }

    /** A mistyped mode keeps picocli's suggestions. */
    @Test
    void aMistypedCommandKeepsTheSuggestions() throws Exception {
        DhtRun o = dht("gett", "k");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).contains("Did you mean: dht get").endsWith("Try 'dht --help' for more information." + NL)
                .doesNotContain("Usage:");
    }

    /**
     * A cluster whose ports would run past 65535 is bad usage, said before any node starts (failed
     * before: the nodes below 65536 started, the next one failed, and the launcher exited 1).
     */
    @Test
    void aClusterPortOutOfRangeIsBadUsageBeforeAnyNodeStarts(@TempDir java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path data = tmp.resolve("cluster");
        DhtRun o = dht("cluster", "--nodes", "3", "--base-port", "65534", "--data", data.toString());
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).isEqualTo("--base-port must be 1..65533 for 3 nodes (ports base-port to base-port + nodes - 1), got 65534"
                + NL + "Try 'dht cluster --help' for more information." + NL);
        assertThat(data).doesNotExist();
        for (String[] args : List.of(new String[] {"--base-port", "0"}, new String[] {"--nodes", "0"}, new String[] {"--nodes", "65"})) {
            List<String> all = new ArrayList<>(List.of("cluster", "--data", data.toString()));
            all.addAll(List.of(args));
            DhtRun bad = dht(all.toArray(String[]::new));
            assertThat(bad.exitCode()).as("%s", all).isEqualTo(2);
            assertThat(bad.stderr()).as("%s", all).endsWith("Try 'dht cluster --help' for more information." + NL);
            assertThat(data).doesNotExist();
        }
    }

    /** A peer URL that is no node's address is bad usage, said before the data directory is made (was: exit 1, a stack trace). */
    @Test
    void aMalformedNodeUrlInTheClusterIsBadUsageBeforeTheDataDirectoryIsMade(@TempDir java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path data = tmp.resolve("d");
        DhtRun o = dht("serve", "--port", "19999", "--data", data.toString(), "--cluster", "http://localhost:19999,http://localhost:99999");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).isEqualTo("dht serve: the port of a node URL must be 1..65535, got http://localhost:99999"
                + NL + "Try 'dht serve --help' for more information." + NL);
        assertThat(data).doesNotExist();
    }

    /** A client's --url with a port out of range is bad usage too (was: exit 1 and a Java exception's text). */
    @Test
    void aClientUrlWithAPortOutOfRangeIsBadUsage() throws Exception {
        for (String url : List.of("http://localhost:99999", "http://localhost:0", "http://localhost:")) {
            DhtRun o = dht("get", "k", "--url", url);
            assertThat(o.exitCode()).as(url).isEqualTo(2);
            assertThat(o.stderr()).as(url).isEqualTo("the port of --url must be 1..65535, got '" + url + "'"
                    + NL + "Try 'dht get --help' for more information." + NL);
        }
    }

    /** A user or a fragment in a client's --url is no node's address (was: exit 1 and a 16-line stack trace). */
    @Test
    void aClientUrlWithAUserOrAFragmentIsBadUsage() throws Exception {
        for (List<String> args : List.of(List.of("get", "k"), List.of("put", "k", "v"), List.of("delete", "k"), List.of("scan", "a"),
                List.of("repair", "a"))) {
            for (String url : List.of("http://user@localhost:19999", "http://localhost:19999#x")) {
                List<String> all = new ArrayList<>(args);
                all.addAll(List.of("--url", url));
                DhtRun o = dht(all.toArray(String[]::new));
                assertThat(o.exitCode()).as("%s", all).isEqualTo(2);
                assertThat(o.stderr()).as("%s", all).isEqualTo("--url must look like http://host:port, got '" + url + "'"
                        + NL + "Try 'dht " + args.getFirst() + " --help' for more information." + NL);
            }
        }
    }

    /**
     * A --host no URL can hold, or one that does not resolve, is bad usage said before any node
     * starts (was: a stack trace and exit 1 with nodes started, or a minute of nodes never ready).
     */
    @Test
    void aClusterHostThatCannotBeANodesAddressIsBadUsageBeforeAnyNodeStarts(@TempDir java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path data = tmp.resolve("cluster");
        for (String host : List.of("a b", "<x>", "exa_mple")) {
            DhtRun o = dht("cluster", "--nodes", "2", "--base-port", "19990", "--host", host, "--data", data.toString());
            assertThat(o.exitCode()).as(host).isEqualTo(2);
            assertThat(o.stderr()).as(host).isEqualTo("--host must be a host name or address, got '" + host + "'"
                    + NL + "Try 'dht cluster --help' for more information." + NL);
            assertThat(data).doesNotExist();
        }
        DhtRun o = dht("cluster", "--nodes", "2", "--base-port", "19990", "--host", "nonexistent.invalid", "--data", data.toString());
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).startsWith("--host nonexistent.invalid does not resolve to an address (unknown host)" + NL);
        assertThat(data).doesNotExist();
    }

    /** leave and remove say bad usage as every mode does: the reason, then the pointer; no KEY hint, as they take no KEY. */
    @Test
    void leaveAndRemoveSayBadUsageAsEveryModeDoes() throws Exception {
        DhtRun o = dht("leave", "--url", "ftp://x");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).isEqualTo("dht leave: node URLs must look like http://host:port, got ftp://x"
                + NL + "Try 'dht leave --help' for more information." + NL);
        DhtRun t = dht("remove", "--url", "http://localhost:19999", "--timeout", "0");
        assertThat(t.exitCode()).isEqualTo(2);
        assertThat(t.stderr()).isEqualTo("dht remove: --timeout must be positive, got 0"
                + NL + "Try 'dht remove --help' for more information." + NL);
        DhtRun bogus = dht("leave", "--bogus");
        assertThat(bogus.exitCode()).isEqualTo(2);
        assertThat(bogus.stderr()).isEqualTo("Unknown option: '--bogus'" + NL + "Try 'dht leave --help' for more information." + NL);
    }

    private static final String NL = System.lineSeparator();

    private static DhtRun dht(String... args) throws IOException, InterruptedException {
        return DhtRun.of(Duration.ofSeconds(60), args);
    }
}
