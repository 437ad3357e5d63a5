package io.jobwheel.worker;

/**
 * {@link MapProcessor#map} failed: the server refused the subtasks, stored
 * none of this worker's subtasks for the map timeout, or the task was
 * cancelled meanwhile. The message says which subtasks may already be stored.
 */
public class MapException extends Exception {
    public MapException(String message) {
        super(message);
    }
}
