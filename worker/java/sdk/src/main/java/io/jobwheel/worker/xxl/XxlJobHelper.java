package io.jobwheel.worker.xxl;

import io.jobwheel.worker.JobHelper;
import io.jobwheel.worker.TaskContext;

/**
 * xxl-job's {@code XxlJobHelper}, with its static methods and their
 * signatures: handler code written for xxl-job compiles and runs unchanged
 * once its import {@code com.xxl.job.core.context.XxlJobHelper} becomes
 * this one. Each call is {@link JobHelper}'s (jobwheel's own name for it),
 * bound to the run of the thread calling it; outside a run the getters
 * return what xxl-job's return there (-1, or null) and the others false.
 */
public class XxlJobHelper {
    protected XxlJobHelper() {
    }

    private static boolean inRun() {
        return JobHelper.getContext() != null;
    }

    // Job info.

    /** The run's job id; -1 outside a run. */
    public static long getJobId() {
        return inRun() ? JobHelper.getJobId() : -1;
    }

    /**
     * The run's parameters: those given to the run (a manual run's, as
     * xxl-job's trigger parameter), else the job's; "" when there are none,
     * null outside a run.
     */
    public static String getJobParam() {
        return inRun() ? JobHelper.getJobParam() : null;
    }

    // Log info.

    /** The run's id (an xxl-job log id stands for a run); -1 outside a run. */
    public static long getLogId() {
        return inRun() ? JobHelper.getInstanceId() : -1;
    }

    /** When this worker began the run's task, in epoch milliseconds; -1 outside a run. */
    public static long getLogDateTime() {
        TaskContext c = JobHelper.getContext();
        return c == null ? -1 : c.getStartedAt().toEpochMilli();
    }

    /**
     * Always null: jobwheel keeps no log file on the worker, the run's lines
     * ({@link #log}) go to the server and are shown in the console. (xxl-job
     * returns null too when a run has no log file.)
     */
    public static String getLogFileName() {
        return null;
    }

    // Shard info.

    /** In a BROADCAST job (xxl-job's SHARDING_BROADCAST route) this worker's shard, else 0; -1 outside a run. */
    public static int getShardIndex() {
        return inRun() ? JobHelper.getShardIndex() : -1;
    }

    /** In a BROADCAST job how many shards there are, else 1; -1 outside a run. */
    public static int getShardTotal() {
        return inRun() ? JobHelper.getShardTotal() : -1;
    }

    // Log.

    /**
     * Logs a line of the run, {@code {}} placeholders as in SLF4J (and
     * xxl-job); false outside a run.
     */
    public static boolean log(String appendLogPattern, Object... appendLogArguments) {
        return JobHelper.log(appendLogPattern, appendLogArguments);
    }

    /** Logs the throwable's stack trace; false outside a run. */
    public static boolean log(Throwable e) {
        return JobHelper.log(e);
    }

    // Handle result.

    /** The run succeeds (the default when the method returns). */
    public static boolean handleSuccess() {
        return JobHelper.handleSuccess();
    }

    /** The run succeeds with handleMsg as its result. */
    public static boolean handleSuccess(String handleMsg) {
        return JobHelper.handleSuccess(handleMsg);
    }

    /** The run fails once the method returns. */
    public static boolean handleFail() {
        return JobHelper.handleFail();
    }

    /** The run fails with handleMsg as its result, once the method returns. */
    public static boolean handleFail(String handleMsg) {
        return JobHelper.handleFail(handleMsg);
    }

    /** The run fails as timed out, once the method returns. */
    public static boolean handleTimeout() {
        return JobHelper.handleTimeout();
    }

    /** The run fails as timed out with handleMsg, once the method returns. */
    public static boolean handleTimeout(String handleMsg) {
        return JobHelper.handleTimeout(handleMsg);
    }

    /**
     * xxl-job's codes: 200 success, 502 timeout, anything else a failure; a
     * null handleMsg keeps the message given before, as in xxl-job.
     */
    public static boolean handleResult(int handleCode, String handleMsg) {
        return JobHelper.handleResult(handleCode, handleMsg);
    }
}
