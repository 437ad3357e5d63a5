package io.jobwheel.worker;

/**
 * A finished task's outcome, as a POST task (a broadcast's post-process) and
 * a REDUCE task see it: the shape of PowerJob's {@code TaskResult}, plus the
 * task's name ({@code ROOT}, or the name given to map).
 */
public final class TaskResult {
    private final long taskId;
    private final String name;
    private final boolean success;
    private final String result;

    public TaskResult(long taskId, String name, boolean success, String result) {
        this.taskId = taskId;
        this.name = name == null ? "" : name;
        this.success = success;
        this.result = result == null ? "" : result;
    }

    public long getTaskId() {
        return taskId;
    }

    /** ROOT, BROADCAST i/n, or for a subtask the name given to map. */
    public String getName() {
        return name;
    }

    /** The same as getName: PowerJob's name for it. */
    public String getTaskName() {
        return name;
    }

    public boolean isSuccess() {
        return success;
    }

    /** The task's result (its ProcessResult's message). */
    public String getResult() {
        return result;
    }

    @Override
    public String toString() {
        return "TaskResult(taskId=" + taskId + ", name=" + name + ", success=" + success + ", result=" + result + ")";
    }
}
