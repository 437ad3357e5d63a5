package io.jobwheel.worker;

/**
 * Reading a POST or REDUCE task's results from the server failed: the server
 * refused (the task is no longer this worker's), did not answer within the
 * map timeout, the task was cancelled, or the worker stopped. The task fails
 * with it, even if the processor catches it: a reduce never ends on part of
 * the results silently.
 */
public class ResultsException extends RuntimeException {
    public ResultsException(String message) {
        super(message);
    }
}
