package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.HistoryChecker;
import dht.testkit.Operation;
import java.time.Duration;
import java.util.List;

/**
 * One black-box fault run against a 3-node cluster already started (every request with ack=2 of
 * from=3): client threads PUT, GET and DELETE through every node while a {@link Nemesis} injects
 * faults and a stray peer sends replica writes from the future ({@link FutureTimestamps}); then
 * the nemesis heals, every key is read through every node, and the history checker decides.
 * Fails on any violation, on a future write a node took, and on a run too thin to mean anything.
 */
final class FaultRun {
    static final int CLIENTS = 6;

    private FaultRun() {
    }

    /** {@code seed} drives the clients', the nemesis' and the stray peer's choices (the timing is the machine's). */
    static void run(List<String> urls, Nemesis.Faults faults, long holdMillis, Duration length, long seed) throws Exception {
        String context = "seed " + seed;
        Nemesis nemesis = new Nemesis(faults, seed, holdMillis, 1_000);
        FutureTimestamps stray = new FutureTimestamps(urls, seed);
        try (ClientWorkload clients = new ClientWorkload(urls)) {
            clients.start(CLIENTS, seed);
            stray.start();
            nemesis.start();
            try {
                Thread.sleep(length.toMillis());
            } finally {
                nemesis.stop();
                stray.stop();
            }
            Thread.sleep(1_000); // the clients go on a while on a whole cluster
            clients.stop();
            int answered = clients.readEverything(CLIENTS, 10);

            List<Operation> history = clients.history.operations();
            System.out.printf("%s: %d operations; answers %s; faults %s; future timestamps refused %d, unanswered %d, other %d%n"
                    + "timeline:%n%s%n", context, history.size(), clients.answers(), nemesis.counts(), stray.refused(),
                    stray.unanswered(), stray.other(), nemesis.timeline());
            HistoryChecker.Result result = HistoryVerdict.assertNoViolation(history, context);
            System.out.println(context + ": " + result.report(0));

            assertThat(stray.accepted()).as("%s: replica writes from the future a node took", context).isEmpty();
            assertThat(stray.refused()).as("%s: replica writes from the future refused", context).isPositive();
            assertThat(nemesis.counts().values().stream().mapToInt(Integer::intValue).sum()).as("%s: faults", context)
                    .isGreaterThanOrEqualTo(2);
            assertThat(answered).as("%s: final quorum reads answered 200 or 404, of every key through every node", context)
                    .isEqualTo(ClientWorkload.KEYS * urls.size());
            assertThat(history.stream().filter(o -> o.isWrite() && o.outcome() == Operation.Outcome.OK).count())
                    .as("%s: acknowledged writes", context).isGreaterThan(100);
            assertThat(history.stream().filter(o -> !o.isWrite() && o.outcome() == Operation.Outcome.OK).count())
                    .as("%s: answered reads", context).isGreaterThan(100);
            HistoryVerdict.assertCheckerCatchesTamperingWith(history);
        }
    }
}
