package fjord.flink;

import java.util.List;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.source.SourceFunction;
import org.apache.flink.types.Row;

/**
 * Streams rounds of rows, one checkpoint apart: it emits a whole round while holding the
 * checkpoint lock (so no barrier falls inside a round), then waits until a checkpoint taken after
 * the round has completed before the next one. Each round is thus committed by exactly one
 * checkpoint of the job; after the last round and its checkpoint the source ends. Parallelism 1;
 * no state to restore (the job runs without restarts).
 */
final class RoundSource implements SourceFunction<Row>, CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    private final List<List<Row>> rounds;
    private volatile boolean running = true;
    /** The first checkpoint taken after the current round was emitted, or -1. */
    private volatile long checkpointAfterRound = -1;
    private volatile boolean roundCommitted;
    private volatile boolean roundEmitted;

    RoundSource(List<List<Row>> rounds) {
        this.rounds = rounds;
    }

    @Override
    public void run(SourceContext<Row> ctx) throws Exception {
        for (List<Row> round : rounds) {
            synchronized (ctx.getCheckpointLock()) {
                for (Row row : round) {
                    ctx.collect(row);
                }
                checkpointAfterRound = -1;
                roundCommitted = false;
                roundEmitted = true;
            }
            while (running && !roundCommitted) {
                Thread.sleep(5);
            }
            if (!running) {
                return;
            }
        }
    }

    @Override
    public void cancel() {
        running = false;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        // runs under the checkpoint lock: no round is half emitted here
        if (roundEmitted && checkpointAfterRound < 0) {
            checkpointAfterRound = context.getCheckpointId();
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (checkpointAfterRound >= 0 && checkpointId >= checkpointAfterRound) {
            roundEmitted = false;
            roundCommitted = true;
        }
    }
}
