package io.jobwheel.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A task of a dispatch (docs/protocol.md §8.1), already validated by Protocol.decode. */
final class Task {
    final long taskId;
    final long instanceId;
    final long jobId;
    final int attempt;
    final String kind;
    final String name;
    final String executionMode;
    final String processorType;
    final String processor;
    final String jobParams;
    final String params;
    final String payload;
    final Instant deadline; // null: no timeout
    final Instant startAt; // null: start at once (feature start.at, §8.6)
    final List<TaskResult> results; // null when paged
    final boolean resultsPaged;
    final long resultCount;
    final int shardIndex;
    final int shardTotal;
    final long workflowRunId;
    final String workflowNode;
    final ObjectNode workflowContext; // null outside workflows
    final Map<String, String> upstream;
    final String traceparent; // "": not traced, or not a valid traceparent (ignored, §8.5)

    Task(JsonNode t) {
        taskId = Protocol.integer(t, "taskId");
        instanceId = Protocol.integer(t, "instanceId");
        jobId = Protocol.integer(t, "jobId");
        attempt = (int) Protocol.integer(t, "attempt");
        kind = Protocol.text(t, "kind");
        name = Protocol.text(t, "name");
        executionMode = Protocol.text(t, "executionMode");
        processorType = Protocol.text(t, "processorType");
        processor = Protocol.text(t, "processor");
        jobParams = Protocol.text(t, "jobParams");
        params = Protocol.text(t, "params");
        payload = Protocol.text(t, "payload");
        String d = Protocol.text(t, "deadline");
        deadline = d.isEmpty() ? null : Protocol.parseTime(d);
        String s = Protocol.text(t, "startAt");
        // A zero time (Go's 0001-01-01) or any past one is simply not in the
        // future when the task is accepted: it starts at once.
        startAt = s.isEmpty() ? null : Protocol.parseTime(s);
        resultsPaged = t.path("resultsPaged").asBoolean(false);
        resultCount = Protocol.integer(t, "resultCount");
        results = resultsPaged ? null : results(t.get("results"));
        shardIndex = (int) Protocol.integer(t, "shardIndex");
        shardTotal = (int) Protocol.integer(t, "shardTotal");
        workflowRunId = Protocol.integer(t, "workflowRunId");
        workflowNode = Protocol.text(t, "workflowNode");
        JsonNode wc = t.get("workflowContext");
        workflowContext = wc != null && wc.isObject() ? ((ObjectNode) wc).deepCopy() : null;
        Map<String, String> up = new LinkedHashMap<>();
        JsonNode u = t.get("upstream");
        if (u != null && u.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = u.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                up.put(e.getKey(), e.getValue().asText());
            }
        }
        upstream = Collections.unmodifiableMap(up);
        // Tracing never refuses work (§8.5): a value that is not a valid
        // traceparent, or not even a string, counts as none.
        JsonNode tp = t.get("traceparent");
        traceparent = tp != null && tp.isTextual() && Protocol.validTraceparent(tp.asText()) ? tp.asText() : "";
    }


    /** TaskResults from a dispatch's or an ack's results array. */
    static List<TaskResult> results(JsonNode arr) {
        List<TaskResult> out = new ArrayList<>();
        if (arr != null && arr.isArray()) {
            for (JsonNode r : arr) {
                out.add(new TaskResult(Protocol.integer(r, "taskId"), Protocol.text(r, "name"),
                        r.path("success").asBoolean(false), Protocol.text(r, "result")));
            }
        }
        return out;
    }
}
