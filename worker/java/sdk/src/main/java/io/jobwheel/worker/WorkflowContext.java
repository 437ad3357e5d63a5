package io.jobwheel.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of the workflow run a task's instance runs for: the run's
 * initial context with the additions of the nodes that finished before this
 * one, and what this task adds (sent with its final report, seen by the
 * nodes after it). The shape of PowerJob's {@code WorkflowContext}. Outside
 * a workflow it is empty and additions are ignored, as in PowerJob.
 */
public final class WorkflowContext {
    private final long runId;
    private final String node;
    private final ObjectNode initial;
    private final Map<String, JsonNode> additions = new LinkedHashMap<>();

    WorkflowContext(long runId, String node, ObjectNode initial) {
        this.runId = runId;
        this.node = node == null ? "" : node;
        this.initial = initial == null ? Protocol.JSON.createObjectNode() : initial;
    }

    /** The workflow run's id, or null outside a workflow (PowerJob's name). */
    public Long getWfInstanceId() {
        return runId > 0 ? runId : null;
    }

    /** The workflow run's id; 0 outside a workflow. */
    public long getRunId() {
        return runId;
    }

    /** The node's key in the workflow; "" outside a workflow. */
    public String getNode() {
        return node;
    }

    /** Whether the task runs for a workflow node. */
    public boolean isWorkflow() {
        return runId > 0;
    }

    /**
     * The context as PowerJob shows it: each key with its value as text (a
     * string as is, anything else as its JSON), this task's additions
     * included. A copy.
     */
    public synchronized Map<String, String> fetchWorkflowContext() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : merged().entrySet()) {
            JsonNode v = e.getValue();
            out.put(e.getKey(), v == null || v.isNull() ? null : v.isTextual() ? v.asText() : v.toString());
        }
        return out;
    }

    /**
     * The context with its JSON values: strings, numbers (Integer, Long,
     * Double…), booleans, lists and maps. A copy.
     */
    public synchronized Map<String, Object> getValues() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : merged().entrySet()) {
            out.put(e.getKey(), Protocol.JSON.convertValue(e.getValue(), Object.class));
        }
        return Collections.unmodifiableMap(out);
    }

    /** One value of the context (see getValues), or null. */
    public Object get(String key) {
        return getValues().get(key);
    }

    /**
     * Adds key → value to the run's context (a key already there is
     * replaced); the value is encoded as JSON now, so one that cannot be
     * throws IllegalArgumentException naming the key. PowerJob's name; also
     * {@link #put}.
     */
    public void appendData2WfContext(String key, Object value) {
        put(key, value);
    }

    /** The same as appendData2WfContext. */
    public synchronized void put(String key, Object value) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("workflow context: the key is empty");
        }
        if (runId <= 0) {
            return; // not a workflow node: nothing would read it
        }
        JsonNode v;
        try {
            v = Protocol.JSON.valueToTree(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("workflow context key " + key + ": the value cannot be encoded as JSON: "
                    + e.getMessage(), e);
        }
        additions.put(key, v);
    }

    private Map<String, JsonNode> merged() {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = initial.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), e.getValue());
        }
        m.putAll(additions);
        return m;
    }

    /**
     * This task's additions for its final report, or null without any;
     * throws IllegalStateException when they are too large to send (the
     * task then fails: losing them silently would break the workflow
     * downstream).
     */
    synchronized ObjectNode additions() {
        if (additions.isEmpty()) {
            return null;
        }
        ObjectNode o = Protocol.JSON.createObjectNode();
        additions.forEach(o::set);
        int size;
        try {
            size = Protocol.utf8Length(Protocol.dumps(o));
        } catch (IOException e) {
            throw new IllegalStateException("workflow context additions cannot be encoded as JSON: " + e.getMessage());
        }
        int limit = Protocol.MAX_FRAME_BYTES / 4;
        if (size > limit) {
            throw new IllegalStateException("workflow context additions take " + size + " bytes; at most " + limit);
        }
        return o;
    }
}
