package io.jobwheel.worker;

/**
 * What a {@link JobHandler} method reads and says about its run, through
 * static calls bound to the thread running it (and to the threads it
 * starts, as xxl-job's): the shape of xxl-job's {@code XxlJobHelper}, whose
 * very names {@link io.jobwheel.worker.xxl.XxlJobHelper} has. Outside a run
 * the getters return empty values and the others return false.
 */
public final class JobHelper {
    private JobHelper() {
    }

    /** The task running on this thread (or on the handler thread that started it), or null. */
    public static TaskContext getContext() {
        return TaskContext.inherited();
    }

    public static long getJobId() {
        TaskContext c = TaskContext.inherited();
        return c == null ? 0 : c.getJobId();
    }

    /** The run's instance id (xxl-job's log id plays that part). */
    public static long getInstanceId() {
        TaskContext c = TaskContext.inherited();
        return c == null ? 0 : c.getInstanceId();
    }

    /**
     * The run's parameters: those given to the run (a manual run's, as
     * xxl-job's trigger parameter), else the job's.
     */
    public static String getJobParam() {
        TaskContext c = TaskContext.inherited();
        return c == null ? "" : c.getParams();
    }

    /**
     * The run's W3C trace context ({@link TaskContext#getTraceparent()}); ""
     * when it is not traced, or outside a run.
     */
    public static String getTraceparent() {
        TaskContext c = TaskContext.inherited();
        return c == null ? "" : c.getTraceparent();
    }

    /** In a BROADCAST job (SHARDING_BROADCAST): this worker's shard, 0 … total−1; else 0. */

    public static int getShardIndex() {
        TaskContext c = TaskContext.inherited();
        return c == null ? 0 : c.getShardIndex();
    }

    /** In a BROADCAST job: how many shards there are; else 1. */
    public static int getShardTotal() {
        TaskContext c = TaskContext.inherited();
        return c == null ? 1 : c.getShardTotal();
    }

    /** Logs a line of the run, {@code {}} placeholders as in SLF4J; false outside a run. */
    public static boolean log(String pattern, Object... args) {
        TaskContext c = TaskContext.inherited();
        if (c == null) {
            return false;
        }
        c.getLogger().info(pattern, args);
        return true;
    }

    /** Logs the throwable's stack trace, at ERROR; false outside a run. */
    public static boolean log(Throwable e) {
        TaskContext c = TaskContext.inherited();
        if (c == null) {
            return false;
        }
        c.getLogger().error(LogFormat.stackTrace(e));
        return true;
    }

    public static boolean handleSuccess() {
        return handle(true, null, false);
    }

    /** The run succeeds with msg as its result (unless it throws afterwards). */
    public static boolean handleSuccess(String msg) {
        return handle(true, msg, false);
    }

    public static boolean handleFail() {
        return handle(false, null, false);
    }

    /** The run fails with msg as its result, once the method returns. */
    public static boolean handleFail(String msg) {
        return handle(false, msg, false);
    }

    public static boolean handleTimeout() {
        return handle(false, null, true);
    }

    /** The run fails as timed out (its result says so), once the method returns. */
    public static boolean handleTimeout(String msg) {
        return handle(false, msg, true);
    }

    /**
     * xxl-job's codes: 200 success, 502 timeout, anything else a failure. As
     * with every handle call, a null msg keeps the message given before.
     */
    public static boolean handleResult(int code, String msg) {
        return handle(code == 200, msg, code == 502);
    }

    private static boolean handle(boolean success, String msg, boolean timeout) {
        TaskContext c = TaskContext.inherited();
        if (c == null) {
            return false;
        }
        c.handledSuccess = success;
        if (msg != null) {
            c.handledMsg = msg; // as xxl-job's: no message keeps the one given before
        }
        c.handledTimeout = timeout;
        return true;
    }
}
