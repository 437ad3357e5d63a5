package io.jobwheel.worker;

/**
 * {@link MapProcessor#map} failed: the server refused the subtasks, stored
 * none of this worker's subtasks for the map timeout, or the task was
 * cancelled meanwhile. The message says which subtasks may already be stored.
 * A {@link PowerJobCheckedException}, as what PowerJob's map throws.
 */
public class MapException extends PowerJobCheckedException {
    public MapException(String message) {
        super(message);
    }
}
