package dht.node.exec;

import java.util.concurrent.CompletionException;

/** What a failed future's exception stands for. */
public final class Completions {
    private Completions() {
    }

    /**
     * The failure a {@link CompletionException} wraps, or {@code e} itself: a future completed
     * exceptionally hands its dependents the cause wrapped once, its own callbacks the cause bare.
     */
    public static Throwable cause(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
