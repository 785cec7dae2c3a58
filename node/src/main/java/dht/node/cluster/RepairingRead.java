package dht.node.cluster;

import dht.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;

/**
 * One GET's replica answers and the repairs made for it ({@link ReadRepair} has the rules).
 *
 * <p>Once {@code ack} calls have succeeded: if the replicas heard so far hold the newest version
 * among their answers in at least {@code ack} copies, the read answers at once (the usual case:
 * they agree). Otherwise the stale ones among them that may receive it are sent it, and the read
 * answers once {@code ack} of the replicas heard hold it (answered it, or took its repair write):
 * then a quorum holds what the client was told, and any later quorum read sees it. Later answers
 * count too (a later holder may allow a repair the copy rule held back, or be the missing copy).
 * The read answers without waiting further when its repair writes failed or nothing left to hear
 * from can still make {@code ack} copies, and at the repair timeout (counted); in both cases with
 * the newest version heard, as a read without blocking repair would, unless the contract lets it
 * answer an older version that {@code ack} of the replicas heard hold (or hold something newer):
 * see {@link #settled}. Once every call is in, stale replicas not yet sent the final newest
 * version are (as after any read).
 *
 * <p>Invariants: each replica is sent a version at most once, and only one newer than what it is
 * known to hold; the answer completes exactly once; nothing here blocks a thread: everything runs
 * in the callbacks of the calls, the repair writes and the timer.
 */
final class RepairingRead {
    private final ReadRepair repair;
    private final List<String> targets;
    private final List<CompletableFuture<Entry>> calls;
    private final int ack;
    /** The membership version the targets were placed by (0: none), which repairs carry. */
    private final long placedBy;
    private final CompletableFuture<Entry> answer = new CompletableFuture<>();
    // guarded by this
    private final Entry[] sentVersion;
    private final Entry[] repairedVersion;
    private int repairsInFlight;
    private boolean quorumReached;
    private boolean quorumFailed;
    private boolean decided;
    private boolean finalPassDone;
    private boolean timerStarted;
    private ScheduledFuture<?> timer;

    RepairingRead(ReadRepair repair, List<String> targets, List<CompletableFuture<Entry>> calls, int ack, long placedBy) {
        this.repair = repair;
        this.targets = targets;
        this.calls = calls;
        this.ack = ack;
        this.placedBy = placedBy;
        this.sentVersion = new Entry[calls.size()];
        this.repairedVersion = new Entry[calls.size()];
    }

    CompletableFuture<Entry> start() {
        List<CompletableFuture<Integer>> heard = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            int index = i;
            heard.add(calls.get(i).thenApply(e -> index));
        }
        QuorumCall.collect(heard, ack).whenComplete((ok, failure) -> {
            synchronized (this) {
                if (failure != null) quorumFailed = true;
                else quorumReached = true;
            }
            if (failure != null) answer.completeExceptionally(failure);
            evaluate();
        });
        for (CompletableFuture<Entry> call : calls) call.whenComplete((e, failure) -> evaluate());
        return answer;
    }

    /** Decides what to do after any event (an answer, a repair write, the quorum); never throws. */
    private void evaluate() {
        try {
            List<Integer> toSend = new ArrayList<>(0);
            Entry newest;
            Entry answerWith = null;
            boolean answerNow = false;
            boolean startTimer = false;
            synchronized (this) {
                newest = newestHeard();
                int lastHolder = -1;
                int holders = 0;
                int outstanding = 0;
                int heldBack = 0;
                for (int i = 0; i < calls.size(); i++) {
                    CompletableFuture<Entry> call = calls.get(i);
                    if (!call.isDone()) {
                        outstanding++;
                        continue;
                    }
                    if (call.state() != Future.State.SUCCESS) continue;
                    if (holds(call.resultNow(), newest)) {
                        holders++;
                        lastHolder = i;
                    } else if (repairedVersion[i] != null && holds(repairedVersion[i], newest)) {
                        holders++;
                    }
                }
                boolean allIn = outstanding == 0;
                if (quorumReached && !decided) {
                    if (holders >= ack) {
                        answerNow = true;
                        answerWith = newest;
                    } else {
                        heldBack = stale(newest, lastHolder, toSend);
                        int possible = holders + repairsInFlight + outstanding + (allIn ? 0 : heldBack);
                        if (possible < ack) {
                            answerNow = true; // no repair can make a quorum of copies now
                            answerWith = settled(newest, outstanding);
                        } else if (!timerStarted) {
                            timerStarted = startTimer = true;
                        }
                    }
                    if (answerNow) decided = true;
                }
                if (allIn && (decided || quorumFailed) && !finalPassDone) {
                    finalPassDone = true;
                    stale(newest, lastHolder, toSend);
                }
                if (answerNow && timer != null) timer.cancel(false);
            }
            for (int i : toSend) write(i, newest);
            if (startTimer) startTimer();
            if (answerNow) answer.complete(answerWith);
        } catch (Throwable e) {
            answer.completeExceptionally(e);
        }
    }

    /**
     * Marks the answered replicas that may be sent {@code newest} and were not yet (adding them to
     * {@code toSend}, counted in flight); returns how many stale ones the copy rule holds back.
     */
    private int stale(Entry newest, int lastHolder, List<Integer> toSend) {
        if (newest == null) return 0;
        int heldBack = 0;
        for (int i = 0; i < calls.size(); i++) {
            CompletableFuture<Entry> call = calls.get(i);
            if (!call.isDone() || call.state() != Future.State.SUCCESS) continue;
            Entry held = call.resultNow();
            if (holds(held, newest)) continue;
            if (sentVersion[i] != null && !newest.supersedes(sentVersion[i])) continue;
            if (!ReadRepair.mayReceive(i, held, newest, lastHolder)) {
                heldBack++;
                continue;
            }
            sentVersion[i] = newest;
            repairsInFlight++;
            toSend.add(i);
        }
        return heldBack;
    }

    private void write(int i, Entry version) {
        repair.send(targets.get(i), version, placedBy).whenComplete((ok, failure) -> {
            synchronized (this) {
                repairsInFlight--;
                if (failure == null && (repairedVersion[i] == null || version.supersedes(repairedVersion[i]))) {
                    repairedVersion[i] = version;
                }
            }
            evaluate();
        });
    }

    private void startTimer() {
        ScheduledFuture<?> t = repair.afterTimeout(this::timedOut);
        synchronized (this) {
            if (decided && t != null) t.cancel(false);
            else timer = t;
        }
    }

    private void timedOut() {
        Entry answerWith;
        synchronized (this) {
            if (decided) return;
            decided = true;
            int outstanding = 0;
            for (CompletableFuture<Entry> call : calls) if (!call.isDone()) outstanding++;
            answerWith = settled(newestHeard(), outstanding);
        }
        repair.countTimeout();
        answer.complete(answerWith);
        evaluate(); // the final pass, if every call is in
    }

    /**
     * What a read answers when {@code newest} cannot be given {@code ack} copies among the replicas
     * heard (the copy rule forbids the repairs, or they failed or took too long): {@code newest}
     * would leave a later quorum read free to miss it, a read going back. So it answers the newest
     * version that {@code ack} of the replicas heard hold or have something newer than (null, absent,
     * if none), passing over only versions the contract does not oblige this read to see.
     *
     * <p>The contract obliges a read with {@code ack} of {@code from} to see a write acknowledged
     * with {@code ackW} of {@code fromW} when {@code ackW + ack > max(fromW, from)}. A version's
     * acknowledged copies are at most the replicas heard holding it or something newer plus those
     * not heard from (calls outstanding or failed, replicas outside the read's {@code from}); call
     * that {@code c}. If {@code c + ack > from} an acknowledged write of it may oblige this read
     * (a PUT 1/1 read 3/3), and {@code newest} is answered as it always was.
     */
    private Entry settled(Entry newest, int outstanding) {
        int unknown = outstanding + repair.clusterSize() - calls.size();
        List<Entry> versions = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            CompletableFuture<Entry> call = calls.get(i);
            if (call.isDone() && call.state() != Future.State.SUCCESS) unknown++;
            if (call.state() == Future.State.SUCCESS && call.resultNow() != null) versions.add(call.resultNow());
        }
        versions.sort((x, y) -> x.supersedes(y) ? -1 : y.supersedes(x) ? 1 : 0);
        for (Entry v : versions) {
            int held = 0;
            for (int i = 0; i < calls.size(); i++) {
                CompletableFuture<Entry> call = calls.get(i);
                if (call.state() != Future.State.SUCCESS) continue;
                if (holds(call.resultNow(), v) || repairedVersion[i] != null && holds(repairedVersion[i], v)) held++;
            }
            if (held >= ack) return v;
            if (held + unknown + ack > calls.size()) return newest;
        }
        return null;
    }

    private Entry newestHeard() {
        Entry newest = null;
        for (CompletableFuture<Entry> call : calls) {
            if (call.state() != Future.State.SUCCESS) continue;
            Entry e = call.resultNow();
            if (e != null && e.supersedes(newest)) newest = e;
        }
        return newest;
    }

    /** Whether a replica holding {@code held} (null: nothing) holds {@code newest} (null: nothing). */
    private static boolean holds(Entry held, Entry newest) {
        if (newest == null) return held == null;
        return held != null && !newest.supersedes(held);
    }
}
