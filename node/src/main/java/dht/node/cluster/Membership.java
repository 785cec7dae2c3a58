package dht.node.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * One version of the cluster's membership: who serves reads ({@link #members}), who is being added
 * ({@link #joining}: it gets writes, not reads, while data streams to it) or retired
 * ({@link #leaving}: it still serves reads until its data has moved), and the replication factor,
 * which stays when the members change. Every change makes a new version, one higher.
 * {@link #laggards} are the nodes that did not prepare this version (down when it was agreed,
 * {@link MembershipChanges}): they may still serve an older one until they pull this.
 *
 * <p>Invariants: URLs are sorted and unique across {@code members} and {@code joining};
 * {@code leaving} is a subset of {@code members}; {@code laggards} of {@link #all()}; the owners
 * after the change ({@link #owners()}) are at least {@code replicationFactor}.
 */
public record Membership(long version, List<String> members, List<String> joining, List<String> leaving,
                         int replicationFactor, List<String> laggards) {
    public Membership {
        members = sorted(members);
        joining = sorted(joining);
        leaving = sorted(leaving);
        laggards = sorted(laggards);
        if (version < 1) throw new IllegalArgumentException("membership version must be positive, got " + version);
        if (members.isEmpty()) throw new IllegalArgumentException("a membership needs at least one member");
        for (String j : joining) {
            if (members.contains(j)) throw new IllegalArgumentException(j + " is both a member and joining");
        }
        if (!members.containsAll(leaving)) throw new IllegalArgumentException("leaving " + leaving + " not all members");
        int owners = members.size() + joining.size() - leaving.size();
        if (replicationFactor < 1 || replicationFactor > owners) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " outside 1.." + owners
                    + " (the members after the change)");
        }
        for (String l : laggards) {
            if (!members.contains(l) && !joining.contains(l)) throw new IllegalArgumentException("laggard " + l + " not a member");
        }
    }

    /** A version no node missed. */
    public Membership(long version, List<String> members, List<String> joining, List<String> leaving,
                      int replicationFactor) {
        this(version, members, joining, leaving, replicationFactor, List.of());
    }

    /** This version, recording {@code missed} as the nodes that did not prepare it. */
    public Membership withLaggards(List<String> missed) {
        return new Membership(version, members, joining, leaving, replicationFactor, missed);
    }

    /** The first version of a cluster created with a static list. */
    public static Membership initial(List<String> members, int replicationFactor) {
        return new Membership(1, members, List.of(), List.of(), replicationFactor);
    }

    private static List<String> sorted(List<String> urls) {
        TreeSet<String> s = new TreeSet<>(urls);
        if (s.size() != urls.size()) throw new IllegalArgumentException("a URL listed twice: " + urls);
        return List.copyOf(s);
    }

    /** The nodes a key's replicas are picked among once the change in progress is done. */
    public List<String> owners() {
        List<String> out = new ArrayList<>(members);
        out.removeAll(leaving);
        out.addAll(joining);
        out.sort(null);
        return out;
    }

    /** Every node that gets traffic: the members and those joining. */
    public List<String> all() {
        List<String> out = new ArrayList<>(members);
        out.addAll(joining);
        out.sort(null);
        return out;
    }

    /** Whether data is moving: someone is joining or leaving. */
    public boolean changing() {
        return !joining.isEmpty() || !leaving.isEmpty();
    }

    /** Refuses (409) a new change over this version while one is in progress. */
    void refuseWhileChanging() throws MembershipChangeException {
        if (changing()) {
            throw new MembershipChangeException(409, "another change is in progress (joining " + joining()
                    + ", leaving " + leaving() + "); retry once it is done");
        }
    }

    /** Refuses (409) to drop {@code url} when fewer owners than the replication factor would be left. */
    void refuseBelowReplicationFactor(String url) throws MembershipChangeException {
        if (owners().size() - 1 < replicationFactor()) {
            throw new MembershipChangeException(409, "without " + url + " the cluster would have "
                    + (owners().size() - 1) + " members, fewer than its replication factor " + replicationFactor());
        }
    }

    /** The next version with {@code url} joining. */
    public Membership withJoining(String url) {
        List<String> j = new ArrayList<>(joining);
        j.add(url);
        return new Membership(version + 1, members, j, leaving, replicationFactor);
    }

    /** The next version with every node that was joining a member and every one leaving gone. */
    public Membership settled() {
        return new Membership(version + 1, owners(), List.of(), List.of(), replicationFactor);
    }

    /** The next version with {@code url}'s join called off: it is no longer joining, and nothing else changes. */
    public Membership withoutJoining(String url) {
        List<String> j = new ArrayList<>(joining);
        j.remove(url);
        return new Membership(version + 1, members, j, leaving, replicationFactor);
    }

    /** The next version with {@code url}'s leave called off: a member again, and nothing else changes. */
    public Membership withoutLeaving(String url) {
        List<String> l = new ArrayList<>(leaving);
        l.remove(url);
        return new Membership(version + 1, members, joining, l, replicationFactor);
    }

    /** The next version with {@code url} leaving. */
    public Membership withLeaving(String url) {
        List<String> l = new ArrayList<>(leaving);
        l.add(url);
        return new Membership(version + 1, members, joining, l, replicationFactor);
    }

    /** The next version without {@code url} at all (a dead member dropped). */
    public Membership without(String url) {
        List<String> m = new ArrayList<>(members);
        m.remove(url);
        List<String> l = new ArrayList<>(leaving);
        l.remove(url);
        return new Membership(version + 1, m, joining, l, replicationFactor);
    }

    /** The text form, kept in the data directory and sent between nodes: one {@code name=value} a line. */
    public String encode() {
        StringBuilder b = new StringBuilder();
        b.append("version=").append(version).append('\n');
        b.append("replicationFactor=").append(replicationFactor).append('\n');
        for (String m : members) b.append("member=").append(m).append('\n');
        for (String j : joining) b.append("joining=").append(j).append('\n');
        for (String l : leaving) b.append("leaving=").append(l).append('\n');
        for (String l : laggards) b.append("laggard=").append(l).append('\n');
        return b.toString();
    }

    public byte[] bytes() {
        return encode().getBytes(StandardCharsets.UTF_8);
    }

    /** Reads {@link #encode()}'s form; unknown names are ignored, so that fields can be added. */
    public static Membership decode(String text) {
        long version = -1;
        int rf = -1;
        List<String> members = new ArrayList<>();
        List<String> joining = new ArrayList<>();
        List<String> leaving = new ArrayList<>();
        List<String> laggards = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) continue;
            int eq = line.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("not name=value: " + line);
            String name = line.substring(0, eq);
            String value = line.substring(eq + 1).strip();
            switch (name) {
                case "version" -> version = Long.parseLong(value);
                case "replicationFactor" -> rf = Integer.parseInt(value);
                case "member" -> members.add(value);
                case "joining" -> joining.add(value);
                case "leaving" -> leaving.add(value);
                case "laggard" -> laggards.add(value);
                default -> {
                    // a field of a later build
                }
            }
        }
        if (version < 0 || rf < 0) throw new IllegalArgumentException("membership without version or replicationFactor");
        return new Membership(version, members, joining, leaving, rf, laggards);
    }
}
