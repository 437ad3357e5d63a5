package io.jobwheel.worker;

/**
 * A task's log, shown live with the run in the console: the shape of
 * PowerJob's {@code OmsLogger}. Messages take SLF4J-style {@code {}}
 * placeholders; a Throwable left over after them adds its stack trace:
 * {@code logger.error("shop {} failed", shop, e)}.
 */
public interface OmsLogger {
    void debug(String messagePattern, Object... args);

    void info(String messagePattern, Object... args);

    void warn(String messagePattern, Object... args);

    void error(String messagePattern, Object... args);
}
