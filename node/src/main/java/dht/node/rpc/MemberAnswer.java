package dht.node.rpc;

/**
 * Whether an answer to an internal request came from a member, and so is taken for what it says.
 *
 * <p>With a cluster secret, an answer proves it ({@link ClusterSecret#ANSWER_HEADER}). Without
 * one, a node still marks every internal answer it makes as a node's ({@value #UNSIGNED} in the
 * same header), so that another HTTP server on a member's address (a proxy's error page, a
 * leftover web server) is not taken for a replica: its {@code 404} would otherwise read as "no
 * version here" and its {@code 200} as a value. The mark is no defence against a process that
 * means harm (that is what the secret is for), only against one that answers by accident.
 * Refusals the pipeline makes before routing ({@link ClusterSecret#mayComeUnproven}) may come
 * without either, and are taken by their status alone.
 */
public final class MemberAnswer {
    /** The {@value ClusterSecret#ANSWER_HEADER} value of an internal answer from a node without a secret. */
    public static final String UNSIGNED = "unsigned";
    /** What a client says of an answer without a node's mark, after naming who gave it. */
    static final String UNMARKED = "without a dht node's mark (another process on its address?)";

    private MemberAnswer() {
    }

    /** Whether the complete answer {@code status}, {@code body} to a request proved by {@code requestProof} (null without a secret) is a member's. */
    static boolean isMembers(ClusterSecret secret, String requestProof, int status, ClusterSecret.Headers headers, byte[] body,
            String header) {
        return secret == null ? UNSIGNED.equals(header) : secret.provesAnswer(requestProof, status, headers, body, header);
    }

    /** Whether the head of a streamed answer with {@code header} is a member's. */
    public static boolean isMembersStream(ClusterSecret secret, String requestProof, String header) {
        return secret == null ? UNSIGNED.equals(header) : secret.provesStreamAnswer(requestProof, header);
    }

    /** Why an answer was not taken: what it lacked. */
    public static String lacking(ClusterSecret secret) {
        return secret == null ? UNMARKED : ClusterSecret.UNPROVEN;
    }
}
