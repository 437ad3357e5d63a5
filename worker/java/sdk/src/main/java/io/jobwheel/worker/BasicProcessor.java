package io.jobwheel.worker;

/**
 * Runs a task: a STANDALONE job's run, each task of a BROADCAST job, the ROOT
 * and every subtask of a MAP or MAP_REDUCE job. The shape of PowerJob's
 * {@code BasicProcessor}:
 *
 * <pre>{@code
 * public class SyncOrders implements BasicProcessor {
 *     public ProcessResult process(TaskContext context) throws Exception {
 *         context.getOmsLogger().info("syncing shop {}", context.getJobParams());
 *         return new ProcessResult(true, "synced");
 *     }
 * }
 * }</pre>
 *
 * A thrown exception fails the task with its message as the result (and its
 * stack trace in the run's log); returning null fails it too. A stop from
 * the console or the API, the run's timeout and the worker's shutdown
 * interrupt the thread running it: return (or let the
 * {@link InterruptedException} out) soon after.
 */
@FunctionalInterface
public interface BasicProcessor {
    ProcessResult process(TaskContext context) throws Exception;
}
