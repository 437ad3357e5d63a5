package io.jobwheel.worker;

/**
 * Writes lines to the task's instance log, shown live in the console
 * ({@link TaskContext#getLogger()}). Lines are numbered, batched and sent in
 * order, each stored once; a task's final report waits until its lines are
 * stored. Every line also goes to the worker's own log
 * ({@code System.Logger} "io.jobwheel.worker.task"), printed if its level
 * lets it through.
 */
public interface TaskLogger extends OmsLogger {
    /** The levels a line can have. */
    enum Level {
        DEBUG, INFO, WARN, ERROR
    }

    /** Logs at level; {@code {}} placeholders as in SLF4J. */
    void log(Level level, String messagePattern, Object... args);

    @Override
    default void debug(String messagePattern, Object... args) {
        log(Level.DEBUG, messagePattern, args);
    }

    @Override
    default void info(String messagePattern, Object... args) {
        log(Level.INFO, messagePattern, args);
    }

    @Override
    default void warn(String messagePattern, Object... args) {
        log(Level.WARN, messagePattern, args);
    }

    @Override
    default void error(String messagePattern, Object... args) {
        log(Level.ERROR, messagePattern, args);
    }
}
