package dht.node;

import java.io.IOException;

/** {@code --join} did not make this node a member: the member asked refused, or did not answer. Nothing was changed. */
public final class JoinRefusedException extends IOException {
    public JoinRefusedException(String message) {
        super(message);
    }
}
