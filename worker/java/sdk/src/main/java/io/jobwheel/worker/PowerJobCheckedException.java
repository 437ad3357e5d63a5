package io.jobwheel.worker;

/**
 * PowerJob's checked exception, with its constructors, so that PowerJob
 * code that names it ({@code throws PowerJobCheckedException}, a
 * {@code catch}) compiles with only its import changed. The SDK throws its
 * subclass {@link MapException} from {@link MapProcessor#map}.
 */
public class PowerJobCheckedException extends Exception {
    public PowerJobCheckedException() {
    }

    public PowerJobCheckedException(String message) {
        super(message);
    }

    public PowerJobCheckedException(String message, Throwable cause) {
        super(message, cause);
    }

    public PowerJobCheckedException(Throwable cause) {
        super(cause);
    }
}
