package io.jobwheel.worker;

/**
 * What a processor returns: whether the task succeeded, and a message shown
 * with the run (its result; at most 64 KiB, longer ones are cut). The shape
 * of PowerJob's {@code ProcessResult}.
 */
public final class ProcessResult {
    private final boolean success;
    private final String msg;

    /** A result without a message. */
    public ProcessResult(boolean success) {
        this(success, "");
    }

    public ProcessResult(boolean success, String msg) {
        this.success = success;
        this.msg = msg == null ? "" : msg;
    }

    /** A success with msg as the task's result. */
    public static ProcessResult success(String msg) {
        return new ProcessResult(true, msg);
    }

    /** A failure with msg as the task's result. */
    public static ProcessResult failure(String msg) {
        return new ProcessResult(false, msg);
    }

    public boolean isSuccess() {
        return success;
    }

    public String getMsg() {
        return msg;
    }

    @Override
    public String toString() {
        return "ProcessResult(success=" + success + ", msg=" + msg + ")";
    }
}
