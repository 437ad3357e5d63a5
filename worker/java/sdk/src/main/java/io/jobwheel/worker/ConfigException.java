package io.jobwheel.worker;

/**
 * A setting is wrong: {@link #getField()} names it (the setting, or the
 * environment variable it came from), the message says why.
 */
public class ConfigException extends IllegalArgumentException {
    private final String field;
    private final String reason;

    public ConfigException(String field, String reason) {
        super(field + ": " + reason);
        this.field = field;
        this.reason = reason;
    }

    public String getField() {
        return field;
    }

    public String getReason() {
        return reason;
    }
}
