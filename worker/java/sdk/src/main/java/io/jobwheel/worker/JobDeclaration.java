package io.jobwheel.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * A job declared in code (docs/protocol.md §5.1), run by the processor named
 * {@code processor} of this worker (or of another worker of the same
 * service). The fields are the API's JobInput's, as in the Go SDK's
 * {@code JobDeclaration} and the Python SDK's {@code Job}:
 *
 * <pre>{@code
 * JobDeclaration.builder("invoices", "CRON", "invoices")
 *     .scheduleExpression("0 0 3 * * ?").timeZone("Europe/Berlin").timeoutMs(600_000)
 *     .build();
 * }</pre>
 *
 * Every field but name, scheduleType and processor is optional: left at ""
 * or 0 it is not sent, and the server uses the API's default. The server
 * checks the meaning (a schedule it cannot parse, an unknown mode) as the API
 * does, and refuses the whole hello with BAD_FRAME naming the job and the
 * field; the worker logs that and retries, as with any refused connection.
 */
public final class JobDeclaration {
    private final String name;
    private final String description;
    private final String scheduleType;
    private final String scheduleExpression;
    private final String timeZone;
    private final String executionMode;
    private final String processor;
    private final String params;
    private final int maxInstances;
    private final int taskConcurrency;
    private final int timeoutMs;
    private final int instanceRetries;
    private final int taskRetries;
    private final String overlapPolicy;
    private final int maxQueued;
    private final int priority;
    private final int retryDelayMs;
    private final double retryBackoff;
    private final int retryDelayMaxMs;

    private JobDeclaration(Builder b) {
        name = b.name;
        description = b.description;
        scheduleType = b.scheduleType;
        scheduleExpression = b.scheduleExpression;
        timeZone = b.timeZone;
        executionMode = b.executionMode;
        processor = b.processor;
        params = b.params;
        maxInstances = b.maxInstances;
        taskConcurrency = b.taskConcurrency;
        timeoutMs = b.timeoutMs;
        instanceRetries = b.instanceRetries;
        taskRetries = b.taskRetries;
        overlapPolicy = b.overlapPolicy;
        maxQueued = b.maxQueued;
        priority = b.priority;
        retryDelayMs = b.retryDelayMs;
        retryBackoff = b.retryBackoff;
        retryDelayMaxMs = b.retryDelayMaxMs;
    }

    /** A declaration of job name, scheduled by scheduleType (API, CRON, FIXED_RATE…), run by processor. */
    public static Builder builder(String name, String scheduleType, String processor) {
        return new Builder(name, scheduleType, processor);
    }

    public String getName() {
        return name;
    }

    public String getScheduleType() {
        return scheduleType;
    }

    public String getProcessor() {
        return processor;
    }

    /** The job as hello carries it: camelCase, fields at their defaults left out. */
    ObjectNode toWire() {
        ObjectNode o = Protocol.JSON.createObjectNode();
        o.put("name", name);
        str(o, "description", description);
        o.put("scheduleType", scheduleType);
        str(o, "scheduleExpression", scheduleExpression);
        str(o, "timeZone", timeZone);
        str(o, "executionMode", executionMode);
        o.put("processor", processor);
        str(o, "params", params);
        num(o, "maxInstances", maxInstances);
        num(o, "taskConcurrency", taskConcurrency);
        num(o, "timeoutMs", timeoutMs);
        num(o, "instanceRetries", instanceRetries);
        num(o, "taskRetries", taskRetries);
        str(o, "overlapPolicy", overlapPolicy);
        num(o, "maxQueued", maxQueued);
        num(o, "priority", priority);
        num(o, "retryDelayMs", retryDelayMs);
        if (retryBackoff != 0) {
            o.put("retryBackoff", retryBackoff);
        }
        num(o, "retryDelayMaxMs", retryDelayMaxMs);
        return o;
    }

    private static void str(ObjectNode o, String k, String v) {
        if (!v.isEmpty()) {
            o.put(k, v);
        }
    }

    private static void num(ObjectNode o, String k, int v) {
        if (v != 0) {
            o.put(k, v);
        }
    }

    /**
     * A declaration from its wire form (camelCase, as in JOBWHEEL_JOBS_FILE);
     * an unknown field or a value of the wrong type throws
     * IllegalArgumentException naming it.
     */
    static JobDeclaration fromWire(JsonNode d) {
        if (d == null || !d.isObject()) {
            throw new IllegalArgumentException("a job must be an object, not " + d);
        }
        for (String key : new String[]{"name", "scheduleType", "processor"}) {
            if (!d.has(key) || d.get(key).isNull()) {
                throw new IllegalArgumentException("missing field \"" + key + "\"");
            }
        }
        Builder b = new Builder(text(d, "name"), text(d, "scheduleType"), text(d, "processor"));
        for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String k = e.getKey();
            switch (k) {
                case "name":
                case "scheduleType":
                case "processor":
                    break;
                case "description":
                    b.description(text(d, k));
                    break;
                case "scheduleExpression":
                    b.scheduleExpression(text(d, k));
                    break;
                case "timeZone":
                    b.timeZone(text(d, k));
                    break;
                case "executionMode":
                    b.executionMode(text(d, k));
                    break;
                case "params":
                    b.params(text(d, k));
                    break;
                case "maxInstances":
                    b.maxInstances(integer(d, k));
                    break;
                case "taskConcurrency":
                    b.taskConcurrency(integer(d, k));
                    break;
                case "timeoutMs":
                    b.timeoutMs(integer(d, k));
                    break;
                case "instanceRetries":
                    b.instanceRetries(integer(d, k));
                    break;
                case "taskRetries":
                    b.taskRetries(integer(d, k));
                    break;
                case "overlapPolicy":
                    b.overlapPolicy(text(d, k));
                    break;
                case "maxQueued":
                    b.maxQueued(integer(d, k));
                    break;
                case "priority":
                    b.priority(integer(d, k));
                    break;
                case "retryDelayMs":
                    b.retryDelayMs(integer(d, k));
                    break;
                case "retryBackoff": {
                    JsonNode v = d.get(k);
                    if (!v.isNull() && !v.isNumber()) {
                        throw new IllegalArgumentException("field \"" + k + "\": " + v + " is not a number");
                    }
                    b.retryBackoff(v.asDouble());
                    break;
                }
                case "retryDelayMaxMs":
                    b.retryDelayMaxMs(integer(d, k));
                    break;
                default:
                    throw new IllegalArgumentException("unknown field \"" + k + "\"");
            }
        }
        return b.build();
    }

    private static String text(JsonNode d, String k) {
        JsonNode v = d.get(k);
        if (v == null || v.isNull()) {
            return "";
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("field \"" + k + "\": " + v + " is not a string");
        }
        return v.asText();
    }

    private static int integer(JsonNode d, String k) {
        JsonNode v = d.get(k);
        if (v == null || v.isNull()) {
            return 0;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new IllegalArgumentException("field \"" + k + "\": " + v + " is not an integer");
        }
        return v.asInt();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JobDeclaration && toWire().equals(((JobDeclaration) o).toWire());
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, scheduleType, processor);
    }

    @Override
    public String toString() {
        return toWire().toString();
    }

    /** Builds a JobDeclaration; each setter is a JobInput field of the API. */
    public static final class Builder {
        private final String name;
        private String description = "";
        private final String scheduleType;
        private String scheduleExpression = "";
        private String timeZone = "";
        private String executionMode = "";
        private final String processor;
        private String params = "";
        private int maxInstances;
        private int taskConcurrency;
        private int timeoutMs;
        private int instanceRetries;
        private int taskRetries;
        private String overlapPolicy = "";
        private int maxQueued;
        private int priority;
        private int retryDelayMs;
        private double retryBackoff;
        private int retryDelayMaxMs;

        private Builder(String name, String scheduleType, String processor) {
            this.name = nn(name);
            this.scheduleType = nn(scheduleType);
            this.processor = nn(processor);
        }

        private static String nn(String s) {
            return s == null ? "" : s;
        }

        public Builder description(String v) {
            description = nn(v);
            return this;
        }

        /** A cron (seconds first, e.g. "0 0 3 * * ?"), or milliseconds for FIXED_RATE / FIXED_DELAY. */
        public Builder scheduleExpression(String v) {
            scheduleExpression = nn(v);
            return this;
        }

        /** An IANA zone for the cron, e.g. "Asia/Shanghai". */
        public Builder timeZone(String v) {
            timeZone = nn(v);
            return this;
        }

        /** STANDALONE (the default), BROADCAST, MAP or MAP_REDUCE. */
        public Builder executionMode(String v) {
            executionMode = nn(v);
            return this;
        }

        public Builder params(String v) {
            params = nn(v);
            return this;
        }

        public Builder maxInstances(int v) {
            maxInstances = v;
            return this;
        }

        public Builder taskConcurrency(int v) {
            taskConcurrency = v;
            return this;
        }

        public Builder timeoutMs(int v) {
            timeoutMs = v;
            return this;
        }

        public Builder instanceRetries(int v) {
            instanceRetries = v;
            return this;
        }

        public Builder taskRetries(int v) {
            taskRetries = v;
            return this;
        }

        /** CANCEL, QUEUE or REPLACE: what a fire over maxInstances does. */
        public Builder overlapPolicy(String v) {
            overlapPolicy = nn(v);
            return this;
        }

        public Builder maxQueued(int v) {
            maxQueued = v;
            return this;
        }

        public Builder priority(int v) {
            priority = v;
            return this;
        }

        public Builder retryDelayMs(int v) {
            retryDelayMs = v;
            return this;
        }

        public Builder retryBackoff(double v) {
            retryBackoff = v;
            return this;
        }

        public Builder retryDelayMaxMs(int v) {
            retryDelayMaxMs = v;
            return this;
        }

        /**
         * The declaration; throws IllegalArgumentException when the wire
         * cannot carry it (the server checks what it means).
         */
        public JobDeclaration build() {
            if (!Double.isFinite(retryBackoff)) {
                throw new IllegalArgumentException("retryBackoff: " + retryBackoff + " is not a finite number");
            }
            return new JobDeclaration(this);
        }
    }
}
