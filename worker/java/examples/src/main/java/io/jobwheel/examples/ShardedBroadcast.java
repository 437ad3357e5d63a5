package io.jobwheel.examples;

import io.jobwheel.worker.BroadcastProcessor;
import io.jobwheel.worker.ProcessResult;
import io.jobwheel.worker.TaskContext;
import io.jobwheel.worker.TaskResult;

import java.util.List;

/**
 * A BROADCAST job's processor written the PowerJob way: preProcess once,
 * process on every selected worker (each with its shard), postProcess once
 * with every shard's result.
 */
public class ShardedBroadcast implements BroadcastProcessor {
    @Override
    public ProcessResult preProcess(TaskContext context) {
        context.getOmsLogger().info("preparing the broadcast");
        return new ProcessResult(true, "prepared");
    }

    @Override
    public ProcessResult process(TaskContext context) {
        int index = context.getShardIndex();
        int total = context.getShardTotal();
        context.getOmsLogger().info("shard {} of {} on worker {}", index, total, context.getWorkerId());
        return new ProcessResult(true, "shard " + index + "/" + total + " done");
    }

    @Override
    public ProcessResult postProcess(TaskContext context, List<TaskResult> taskResults) {
        int ok = 0;
        int n = 0;
        for (TaskResult r : taskResults) {
            n++;
            if (r.isSuccess()) {
                ok++;
            }
        }
        context.getOmsLogger().info("{} of {} shards succeeded", ok, n);
        return new ProcessResult(ok == n, ok + " of " + n + " shards succeeded");
    }
}
