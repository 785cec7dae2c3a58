package dht.cli;

/** {@code bin/dht serve}'s options as picocli parses them, for tests of how {@link ServeCommand#config()} reads them. */
final class ServeArgs {
    private ServeArgs() {
    }

    static ServeCommand parsed(String... args) {
        ServeCommand c = new ServeCommand();
        new picocli.CommandLine(c).parseArgs(args);
        return c;
    }
}
