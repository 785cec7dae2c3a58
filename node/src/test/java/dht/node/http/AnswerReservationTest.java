package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One GET's reservation in the answer budget: what it counts, and who owns it after the answer. */
class AnswerReservationTest {
    final Admission admission = new Admission(10, 2, 10_000);

    @Test
    void countsValuesOfAKibibyteOrMoreAndRefusesPastTheBudget() {
        AnswerReservation r = new AnswerReservation(admission);
        assertThat(r.tryReserve(1023)).isTrue();
        assertThat(admission.answerBytesHeld()).as("small values are not counted").isZero();
        assertThat(r.tryReserve(6000)).isTrue();
        assertThat(r.tryReserve(6000)).as("past the 10,000-byte budget").isFalse();
        assertThat(admission.answerBytesHeld()).isEqualTo(6000);
        r.release(6000);
        assertThat(admission.answerBytesHeld()).isZero();
    }

    @Test
    void closeHandsTheReservationOverAndLaterReadsAreNotCounted() {
        AnswerReservation r = new AnswerReservation(admission);
        assertThat(r.tryReserve(4000)).isTrue();
        assertThat(r.close()).isEqualTo(4000);
        // a replica answering after the quorum: neither counted nor given back by the reservation
        assertThat(r.tryReserve(9000)).isTrue();
        r.release(9000);
        r.release(4000);
        assertThat(admission.answerBytesHeld()).as("the 4,000 now belong to the answer").isEqualTo(4000);
        admission.releaseAnswer(4000);
        assertThat(admission.answerBytesHeld()).isZero();
    }
}
