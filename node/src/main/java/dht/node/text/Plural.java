package dht.node.text;

/** A count with its noun, for messages people read: "1 node", "3 nodes" (never "1 nodes"). */
public final class Plural {
    private Plural() {
    }

    /** {@code n} and {@code noun} (a regular English noun in the singular), plural unless n is 1. */
    public static String of(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
