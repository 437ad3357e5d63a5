package io.jobwheel.worker;

import java.util.List;

/**
 * What the server did with one declared job at a connect (or, in a dry run,
 * would do): action CREATE, UPDATE (fields: the definition's fields it
 * changed), UNCHANGED, DISABLE (a job of the set no longer declared) or
 * REFUSED (a job of that name the set does not manage, left alone;
 * {@link #getError()} says why).
 */
public final class JobChange {
    public static final String CREATE = "CREATE";
    public static final String UPDATE = "UPDATE";
    public static final String UNCHANGED = "UNCHANGED";
    public static final String DISABLE = "DISABLE";
    public static final String REFUSED = "REFUSED";

    private final String name;
    private final String action;
    private final List<String> fields;
    private final String error;

    JobChange(String name, String action, List<String> fields) {
        this(name, action, fields, "");
    }

    JobChange(String name, String action, List<String> fields, String error) {
        this.name = name;
        this.action = action;
        this.fields = List.copyOf(fields);
        this.error = error == null ? "" : error;
    }

    /** Why the job was REFUSED; empty otherwise. */
    public String getError() {
        return error;
    }

    public String getName() {
        return name;
    }

    public String getAction() {
        return action;
    }

    public List<String> getFields() {
        return fields;
    }

    @Override
    public String toString() {
        return name + " " + action + (fields.isEmpty() ? "" : " " + String.join(",", fields)) + (error.isEmpty() ? "" : ": " + error);
    }
}
