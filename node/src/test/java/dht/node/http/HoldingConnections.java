package dht.node.http;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * In-memory connections whose requests are held, not answered: the test answers each slot when it
 * chooses. The pipeline is the node's (codec, assembler, sequencer) with a 1000-byte body limit.
 */
final class HoldingConnections {
    final Admission admission;
    final List<AnswerSlot> held = new ArrayList<>();
    /** Slots whose work was declared over (their admission permit would go back). */
    final java.util.concurrent.atomic.AtomicInteger workReleased = new java.util.concurrent.atomic.AtomicInteger();

    HoldingConnections(Admission admission) {
        this.admission = admission;
    }

    EmbeddedChannel connect() {
        RequestHandler holdEverything = (request, slot) -> {
            request.release();
            slot.onRelease(workReleased::incrementAndGet);
            held.add(slot);
        };
        return new EmbeddedChannel(new HttpServerCodec(), new RequestAssembler(8192, 1000, admission, Duration.ofSeconds(30)),
                new ResponseSequencer(holdEverything, admission));
    }
}
