package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An answer completed on a storage thread is handed to its connection's event loop. When the heap is
 * so full that the hand-off itself throws, the answer cannot be written, but the request's permit
 * must still come back (an error thrown there is swallowed by the future the completion runs in).
 */
class AnswerSlotHandOffTest {
    /** An executor whose every hand-off fails, once armed, as on a full heap; never the caller's own thread. */
    private static final class HeaplessExecutor extends AbstractEventExecutor {
        HeaplessExecutor(io.netty.util.concurrent.EventExecutorGroup parent) {
            super(parent);
        }

        /** Until armed, tasks run at once on the caller's thread (the pipeline's own set-up). */
        volatile boolean armed;

        @Override
        public void execute(Runnable task) {
            if (armed) throw new OutOfMemoryError("injected: Java heap space");
            task.run();
        }

        @Override
        public boolean inEventLoop(Thread thread) {
            return false;
        }

        @Override
        public boolean isShuttingDown() {
            return false;
        }

        @Override
        public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
            return terminationFuture();
        }

        @Override
        public Future<?> terminationFuture() {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
        }

        @Override
        @Deprecated
        public void shutdown() {
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    @Test
    void anAnswerWhoseHandOffRunsOutOfHeapGivesItsPermitBackAndClosesTheConnection() throws Exception {
        DefaultEventExecutorGroup failing = new DefaultEventExecutorGroup(1) {
            @Override
            protected EventExecutor newChild(Executor executor, Object... args) {
                return new HeaplessExecutor(this);
            }
        };
        EmbeddedChannel channel = new EmbeddedChannel();
        try {
            channel.pipeline().addLast(failing, "handler", new ChannelInboundHandlerAdapter());
            ChannelHandlerContext ctx = channel.pipeline().context("handler");
            Admission admission = new Admission(4, 1, 1 << 20);
            assertThat(admission.tryAcquire()).isTrue();
            AnswerSlot slot = new AnswerSlot(null, ctx, true, false);
            ((HeaplessExecutor) ctx.executor()).armed = true;
            slot.onRelease(admission::release);

            FullHttpResponse answer = Responses.text(HttpResponseStatus.OK, "value");
            assertThatCode(() -> slot.respond(answer)).as("from a thread that is not the event loop").doesNotThrowAnyException();
            assertThat(admission.inFlight()).as("the permit is back").isZero();
            assertThat(answer.refCnt()).as("the answer released").isZero();
            channel.runPendingTasks();
            assertThat(channel.isOpen()).as("the connection closed").isFalse();
        } finally {
            channel.finishAndReleaseAll();
            failing.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
