package io.jobwheel.worker;

import java.util.List;

/**
 * A MAP_REDUCE job's processor: a {@link MapProcessor} whose {@link #reduce}
 * runs once every subtask has ended, with the ROOT's and every subtask's
 * result. The shape of PowerJob's {@code MapReduceProcessor}.
 */
public interface MapReduceProcessor extends MapProcessor {
    /**
     * The run's last step; its result is the run's. taskResults are in task
     * id order and read from the server a page at a time as the loop goes
     * (a reduce over millions of subtasks holds one page): iterate them once
     * rather than index them. A page that cannot be read throws
     * {@link ResultsException} out of the loop, and the task fails even if
     * reduce catches it.
     */
    ProcessResult reduce(TaskContext context, List<TaskResult> taskResults) throws Exception;
}
