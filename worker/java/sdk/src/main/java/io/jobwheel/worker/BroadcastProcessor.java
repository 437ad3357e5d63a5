package io.jobwheel.worker;

import java.util.List;

/**
 * A BROADCAST job's processor: {@link #process} runs once on every selected
 * worker (each task knows its {@link TaskContext#getShardIndex() shard index}
 * and {@link TaskContext#getShardTotal() total}), {@link #preProcess} once
 * before on one worker, {@link #postProcess} once after with every
 * broadcast task's result. The shape of PowerJob's {@code BroadcastProcessor}.
 */
public interface BroadcastProcessor extends BasicProcessor {
    /** Runs once before the broadcast; a failure fails the run. */
    default ProcessResult preProcess(TaskContext context) throws Exception {
        return new ProcessResult(true);
    }

    /**
     * Runs once after every broadcast task ended, with their results in
     * task id order (read from the server a page at a time as the loop
     * goes: iterate them once rather than index them).
     */
    default ProcessResult postProcess(TaskContext context, List<TaskResult> taskResults) throws Exception {
        return defaultResult(taskResults);
    }

    /** "succeed:N, failed:M", a success unless a task failed. */
    static ProcessResult defaultResult(List<TaskResult> taskResults) {
        long ok = 0;
        long failed = 0;
        for (TaskResult r : taskResults) {
            if (r.isSuccess()) {
                ok++;
            } else {
                failed++;
            }
        }
        return new ProcessResult(failed == 0, "succeed:" + ok + ", failed:" + failed);
    }
}
