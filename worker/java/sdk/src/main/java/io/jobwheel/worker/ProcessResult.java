package io.jobwheel.worker;

/**
 * What a processor returns: whether the task succeeded, and a message shown
 * with the run (its result; at most 64 KiB, longer ones are cut). The shape
 * of PowerJob's {@code ProcessResult}.
 */
public final class ProcessResult {
    private boolean success;
    private String msg;

    /** A failure without a message, to fill with the setters (PowerJob's no-argument constructor). */
    public ProcessResult() {
        this(false, "");
    }

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

    /** PowerJob's setter; read when the processor returns. */
    public void setSuccess(boolean success) {
        this.success = success;
    }

    /** PowerJob's setter (null is ""); read when the processor returns. */
    public void setMsg(String msg) {
        this.msg = msg == null ? "" : msg;
    }

    @Override
    public String toString() {
        return "ProcessResult(success=" + success + ", msg=" + msg + ")";
    }
}
