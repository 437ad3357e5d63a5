package io.jobwheel.worker;

/**
 * The server refused the app secret (or knows no such app). {@link Worker#run}
 * throws it and does not retry: a wrong secret does not fix itself.
 */
public class AuthException extends RuntimeException {
    public AuthException(String message) {
        super(message);
    }
}
