package io.jobwheel.worker;

import java.util.List;

/**
 * A MAP job's processor: the ROOT task splits the work with {@link #map},
 * and each subtask runs {@link #process} again, on any worker of the app,
 * with its element as {@link TaskContext#getSubTask()}. The shape of
 * PowerJob's {@code MapProcessor}:
 *
 * <pre>{@code
 * public ProcessResult process(TaskContext context) throws Exception {
 *     if (isRootTask()) {
 *         map(List.of(new Shard(1), new Shard(2)), "SHARD");
 *         return new ProcessResult(true, "mapped");
 *     }
 *     Shard s = context.getSubTask(Shard.class);
 *     return new ProcessResult(true, "did shard " + s.id);
 * }
 * }</pre>
 */
public interface MapProcessor extends BasicProcessor {
    /** PowerJob's advice, kept: larger lists are sent in several messages anyway. */
    int RECOMMEND_BATCH_SIZE = 200;

    /**
     * Emits subtasks of the running task (a ROOT or a subtask of a MAP or
     * MAP_REDUCE job): each element becomes a subtask called taskName with
     * the element, encoded as JSON, as its payload. Returns once the server
     * has stored them all (while the server is slower than the tasks
     * mapping, it waits: that is the back-pressure); throws otherwise, saying
     * which subtasks may already be stored. Call it from the thread running
     * {@link #process}.
     */
    default void map(List<?> taskList, String taskName) throws MapException {
        TaskContext ctx = TaskContext.current();
        if (ctx == null) {
            throw new MapException("map: no task runs on this thread; call map from the thread running process");
        }
        ctx.map(taskList, taskName);
    }

    /** Whether the task running on this thread is the ROOT task. */
    default boolean isRootTask() {
        TaskContext ctx = TaskContext.current();
        return ctx != null && ctx.isRootTask();
    }
}
