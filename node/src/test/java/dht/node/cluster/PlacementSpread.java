package dht.node.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Measures how evenly random keys spread over N nodes (docs/cluster.md quotes its output).
 * Run: java -cp node/target/classes:node/target/test-classes:$(deps) dht.node.cluster.PlacementSpread [keys] [seed]
 */
public final class PlacementSpread {
    public static void main(String[] args) {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 42;
        for (int n : new int[] {3, 5, 10}) {
            List<String> nodes = new ArrayList<>();
            for (int i = 0; i < n; i++) nodes.add("http://localhost:" + (8080 + i));
            Placement p = new Placement(nodes);
            int quorumFrom = Math.min(3, n);
            long[] primary = new long[n];
            long[] replica = new long[n];
            Random r = new Random(seed);
            byte[] key = new byte[16];
            long t0 = System.nanoTime();
            for (int k = 0; k < keys; k++) {
                r.nextBytes(key);
                List<String> reps = p.replicas(key, quorumFrom);
                primary[nodes.indexOf(reps.get(0))]++;
                for (String s : reps) replica[nodes.indexOf(s)]++;
            }
            long ns = System.nanoTime() - t0;
            System.out.printf("N=%d keys=%d  primary: %s%n", n, keys, stats(primary, keys / (double) n));
            System.out.printf("N=%d keys=%d  replicas(from=%d): %s%n", n, keys, quorumFrom,
                    stats(replica, keys * (double) quorumFrom / n));
            System.out.printf("N=%d  %.0f ns per placement (key of 16 bytes, incl. the random key)%n", n, ns / (double) keys);
        }
    }

    private static String stats(long[] counts, double mean) {
        long min = Long.MAX_VALUE;
        long max = 0;
        double sq = 0;
        for (long c : counts) {
            min = Math.min(min, c);
            max = Math.max(max, c);
            sq += (c - mean) * (c - mean);
        }
        double sd = Math.sqrt(sq / counts.length);
        return String.format("mean %.0f, min %d (%+.2f%%), max %d (%+.2f%%), stddev %.0f (%.3f%% of mean)", mean,
                min, 100 * (min - mean) / mean, max, 100 * (max - mean) / mean, sd, 100 * sd / mean);
    }
}
