package io.jobwheel.worker;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A task as its processor sees it: PowerJob's {@code TaskContext} (job and
 * instance parameters, the task logger, the subtask of a map, the workflow
 * context), plus what jobwheel adds (shards, deadline, cancellation).
 *
 * <p>A processor should return soon after the task is cancelled: the server
 * stopped it, its deadline passed, or the worker is shutting down
 * ({@link #getCancelReason()} says which). The worker interrupts the
 * processor's thread then, so blocking calls throw
 * {@link InterruptedException}; {@link #isCancelled()} tells a loop that
 * checks instead.
 */
public final class TaskContext {
    private static final ThreadLocal<TaskContext> CURRENT = new ThreadLocal<>();
    // The same, inherited by the threads a processor starts, as xxl-job's context is: for JobHelper.
    private static final ThreadLocal<TaskContext> INHERITED = new InheritableThreadLocal<>();

    /** JSON for subtasks: fields as well as getters, PowerJob's subtask classes rarely have setters. */
    static final ObjectMapper SUBTASKS = new ObjectMapper()
            .setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);

    /** The envelope of a subtask that is an object of a class of the processor's package. */
    static final String SUBTASK_CLASS = "@javaClass";
    static final String SUBTASK_VALUE = "value";

    private final Worker worker;
    final Task task;
    private final Class<?> processorClass;
    private final TaskLogger logger;
    private final WorkflowContext workflow;
    private final Results results;
    private volatile Instant startedAt = Instant.now(); // set again when a held task starts (§8.6)
    private final CountDownLatch cancelled = new CountDownLatch(1);
    private final List<Runnable> onCancel = new CopyOnWriteArrayList<>();
    private volatile Cause cause;
    private volatile ResultsException resultsError;
    private int mapCount;
    private Object subTask;
    private boolean subTaskDecoded;

    // What an annotated handler said through JobHelper.handle*.
    volatile Boolean handledSuccess;
    volatile String handledMsg;
    volatile boolean handledTimeout;

    TaskContext(Worker worker, Task task, Class<?> processorClass) {
        this.worker = worker;
        this.task = task;
        this.processorClass = processorClass;
        this.logger = new Logger();
        this.workflow = new WorkflowContext(task.workflowRunId, task.workflowNode, task.workflowContext);
        this.results = task.resultsPaged ? new Results(null, this::readPage, task.resultCount)
                : new Results(task.results, null, 0);
    }

    /** The task running on this thread (a processor's), or null. */
    public static TaskContext current() {
        return CURRENT.get();
    }

    /**
     * The task running on this thread, or else the one that ran on the
     * processor thread that started this thread (xxl-job's inherited
     * context, which the thread keeps); or null.
     */
    static TaskContext inherited() {
        TaskContext c = CURRENT.get();
        return c != null ? c : INHERITED.get();
    }

    static void bind(TaskContext ctx) {
        if (ctx == null) {
            CURRENT.remove();
            INHERITED.remove();
        } else {
            CURRENT.set(ctx);
            INHERITED.set(ctx);
        }
    }

    // Ids.

    public long getJobId() {
        return task.jobId;
    }

    public long getInstanceId() {
        return task.instanceId;
    }

    public long getTaskId() {
        return task.taskId;
    }

    /** The attempt of the instance, from 1. */
    public int getAttempt() {
        return task.attempt;
    }

    /** Retries of the instance so far (attempt − 1): PowerJob's name. */
    public int getCurrentRetryTimes() {
        return Math.max(task.attempt - 1, 0);
    }

    /** The worker running the task. */
    public String getWorkerId() {
        return worker.getWorkerId();
    }

    /**
     * ROOT, PRE, BROADCAST i/n, POST, REDUCE, or for a subtask the name given
     * to map.
     */
    public String getTaskName() {
        return task.name;
    }

    /** ROOT, PRE, BROADCAST, POST, MAP or REDUCE. */
    public String getKind() {
        return task.kind;
    }

    /** Whether this is the ROOT task (of a STANDALONE, MAP or MAP_REDUCE job). */
    public boolean isRootTask() {
        return Protocol.KIND_ROOT.equals(task.kind);
    }

    /** The job's mode: STANDALONE, BROADCAST, MAP or MAP_REDUCE. */
    public String getExecutionMode() {
        return task.executionMode;
    }

    /** The processor name the job names. */
    public String getProcessor() {
        return task.processor;
    }

    // Parameters.

    /** The job's parameters ("" if none). */
    public String getJobParams() {
        return task.jobParams;
    }

    /** This run's parameters (given to runJob or the API; "" if none). */
    public String getInstanceParams() {
        return task.params;
    }

    /** The run's parameters if given, else the job's. */
    public String getParams() {
        String p = task.params.strip();
        return p.isEmpty() ? task.jobParams.strip() : p;
    }

    /**
     * A BROADCAST task's shard: 0 … total−1 among the instance's broadcast
     * tasks (one per selected worker); 0 for other tasks.
     */
    public int getShardIndex() {
        return task.shardIndex;
    }

    /** How many broadcast tasks the instance has; 1 for other tasks. */
    public int getShardTotal() {
        return Math.max(task.shardTotal, 1);
    }

    /**
     * When the task started on this worker: when it was accepted, or for a
     * task dispatched ahead with a start time (feature start.at), when it
     * started at that time.
     */
    public Instant getStartedAt() {
        return startedAt;
    }

    void startedAt(Instant at) {
        startedAt = at;
    }

    /** When the run times out, or null. */
    public Instant getDeadline() {
        return task.deadline;
    }

    /** The worker's work directory. */
    public Path getWorkDir() {
        return worker.workDir();
    }

    // Logs.

    /** The task's log, shown live in the console. */
    public TaskLogger getLogger() {
        return logger;
    }

    /** The same as getLogger: PowerJob's name. */
    public TaskLogger getOmsLogger() {
        return logger;
    }

    // Map and reduce.

    /** A subtask's payload as sent: the JSON text of the element given to map; "" for other tasks. */
    public String getPayload() {
        return task.payload;
    }

    /**
     * A subtask's element as given to map: an object of a class of the
     * processor's package comes back as that class (as PowerJob gives it);
     * anything else as its JSON value (String, Integer, Long, Double,
     * Boolean, List, Map). Null for other tasks. Throws
     * IllegalStateException when the payload cannot be decoded.
     */
    public synchronized Object getSubTask() {
        if (!subTaskDecoded) {
            subTask = decodeSubTask();
            subTaskDecoded = true;
        }
        return subTask;
    }

    /** A subtask's element decoded as type (any class Jackson can build). */
    public <T> T getSubTask(Class<T> type) {
        if (task.payload.isEmpty()) {
            return null;
        }
        try {
            JsonNode n = SUBTASKS.readTree(task.payload);
            if (isEnvelope(n)) {
                n = n.get(SUBTASK_VALUE);
            }
            return SUBTASKS.treeToValue(n, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("subtask of task " + task.taskId + ": cannot decode it as "
                    + type.getName() + ": " + e.getOriginalMessage(), e);
        }
    }

    private static boolean isEnvelope(JsonNode n) {
        return n.isObject() && n.size() == 2 && n.path(SUBTASK_CLASS).isTextual() && n.has(SUBTASK_VALUE);
    }

    private Object decodeSubTask() {
        if (task.payload.isEmpty()) {
            return null;
        }
        JsonNode n;
        try {
            n = SUBTASKS.readTree(task.payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("subtask of task " + task.taskId + ": the payload is not JSON: "
                    + e.getOriginalMessage(), e);
        }
        if (!isEnvelope(n)) {
            return SUBTASKS.convertValue(n, Object.class);
        }
        String name = n.get(SUBTASK_CLASS).asText();
        Class<?> type = subTaskClass(name);
        try {
            return SUBTASKS.treeToValue(n.get(SUBTASK_VALUE), type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("subtask of task " + task.taskId + ": cannot decode it as " + name + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    /**
     * The class a subtask names, only if it is in the processor's package:
     * a payload never makes the worker build an arbitrary class.
     */
    private Class<?> subTaskClass(String name) {
        String pkg = processorClass == null ? null : processorClass.getPackageName();
        ClassLoader loader = processorClass == null ? getClass().getClassLoader() : processorClass.getClassLoader();
        Class<?> type;
        try {
            type = Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("subtask of task " + task.taskId + ": class " + name + " is not on this worker's class path");
        }
        if (pkg == null || !type.getPackageName().equals(pkg)) {
            throw new IllegalStateException("subtask of task " + task.taskId + ": class " + name
                    + " is not in the processor's package " + pkg + "; read it with getSubTask(" + type.getSimpleName() + ".class)");
        }
        return type;
    }

    /**
     * POST and REDUCE tasks: the other tasks' results, in task id order (see
     * {@link Results}: iterate once); empty for other tasks.
     */
    public List<TaskResult> getResults() {
        return results;
    }

    /**
     * Emits subtasks (MAP and MAP_REDUCE jobs, from a ROOT or a subtask): each
     * element becomes a subtask called taskName, its payload the element as
     * JSON. Returns once the server has stored them all; see
     * {@link MapProcessor#map}.
     */
    public void map(List<?> taskList, String taskName) throws MapException {
        if (!"MAP".equals(task.executionMode) && !"MAP_REDUCE".equals(task.executionMode)) {
            throw new MapException("map: only MAP and MAP_REDUCE jobs can emit subtasks; task " + task.taskId
                    + " belongs to a " + (task.executionMode.isEmpty() ? "job of unknown mode" : task.executionMode + " job"));
        }
        if (!Protocol.KIND_ROOT.equals(task.kind) && !Protocol.KIND_MAP.equals(task.kind)) {
            throw new MapException("map: a " + task.kind + " task cannot emit subtasks; only ROOT and MAP tasks can");
        }
        if (taskName == null || taskName.isEmpty() || Protocol.utf8Length(taskName) > 255) {
            throw new MapException("map: the subtask name must be 1 to 255 bytes");
        }
        if (taskList == null || taskList.isEmpty()) {
            return;
        }
        List<Outbox.MapChunk> chunks = new ArrayList<>();
        Outbox.MapChunk cur = null;
        for (int i = 0; i < taskList.size(); i++) {
            String p;
            try {
                p = encodeSubTask(taskList.get(i));
            } catch (IOException | IllegalArgumentException e) {
                throw new MapException("map: subtask " + i + " cannot be encoded as JSON: " + e.getMessage());
            }
            int bytes = Protocol.utf8Length(p);
            if (bytes > Protocol.MAX_PAYLOAD_BYTES) {
                throw new MapException("map: subtask " + i + " is " + bytes + " bytes encoded; a subtask's payload is at most "
                        + Protocol.MAX_PAYLOAD_BYTES);
            }
            int size = Protocol.jsonStringLength(p) + 1;
            if (cur == null || cur.payloads.size() == Protocol.MAX_BATCH || cur.size + size > Outbox.BATCH_BYTES) {
                cur = new Outbox.MapChunk(task.instanceId, task.taskId, taskName, nextMapKey(), i);
                chunks.add(cur);
            }
            cur.payloads.add(p);
            cur.size += size;
        }
        mapWait(chunks);
    }

    /** Plain JSON for JSON-like values; an object of any other class goes in an envelope naming its class. */
    static String encodeSubTask(Object o) throws IOException {
        if (o == null || o instanceof CharSequence || o instanceof Number || o instanceof Boolean || o instanceof Character
                || o instanceof Map || o instanceof Collection || o instanceof JsonNode || o instanceof Enum
                || o.getClass().isArray()) {
            return SUBTASKS.writeValueAsString(o);
        }
        ObjectNode env = SUBTASKS.createObjectNode();
        env.put(SUBTASK_CLASS, o.getClass().getName());
        env.set(SUBTASK_VALUE, SUBTASKS.valueToTree(o));
        return SUBTASKS.writeValueAsString(env);
    }

    /**
     * Keys the task's n-th map message "t(task id)/n": a task run again after
     * its worker died maps the same subtasks under the same keys, and the
     * server stores them once.
     */
    private synchronized String nextMapKey() {
        mapCount++;
        return "t" + task.taskId + "/" + mapCount;
    }

    private void mapWait(List<Outbox.MapChunk> chunks) throws MapException {
        Outbox outbox = worker.outbox();
        try {
            outbox.addMaps(chunks);
        } catch (Outbox.Closed e) {
            throw new MapException("map: " + e.getMessage());
        }
        // The deadline is for the server storing none of this worker's
        // chunks: while it stores some, however slowly, the call waits on
        // (back-pressure, not failure).
        long timeout = worker.mapTimeout().toNanos();
        long deadline = System.nanoTime() + timeout;
        long progress = outbox.mapsStored();
        boolean interrupted = false;
        try {
            for (int i = 0; i < chunks.size(); i++) {
                Outbox.MapChunk c = chunks.get(i);
                while (true) {
                    try {
                        if (c.await(50)) {
                            break;
                        }
                    } catch (InterruptedException e) {
                        interrupted = true; // a cancel: seen just below
                    }
                    if (isCancelled()) {
                        outbox.abandon(chunks.subList(i, chunks.size()));
                        throw new MapException("map: " + getCancelReason() + " (" + stored(chunks, i, false) + ")");
                    }
                    if (outbox.mapsStored() != progress) {
                        progress = outbox.mapsStored();
                        deadline = System.nanoTime() + timeout;
                    }
                    if (System.nanoTime() - deadline >= 0) {
                        outbox.abandon(chunks.subList(i, chunks.size()));
                        throw new MapException("map: the server did not confirm storing the subtasks within "
                                + Cause.seconds(worker.mapTimeout()) + " (connected: " + worker.isConnected() + "; "
                                + stored(chunks, i, false) + ")");
                    }
                }
                if (c.error() != null) {
                    outbox.abandon(chunks.subList(i + 1, chunks.size()));
                    throw new MapException("map: " + c.error().getMessage() + " (" + stored(chunks, i, true) + ")");
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String stored(List<Outbox.MapChunk> chunks, int i, boolean sure) {
        if (i == 0) {
            return sure ? "none was stored" : "they may or may not be stored";
        }
        String done = "subtasks 0.." + (chunks.get(i).first - 1) + " were stored";
        return sure ? done : done + ", later ones may or may not be";
    }

    /**
     * Reads one page of the task's results from the server; a failure is
     * remembered so that the task fails even if the processor catches it.
     */
    private Results.Page readPage(long after, int limit) {
        try {
            return readPageOnce(after, limit);
        } catch (ResultsException e) {
            if (resultsError == null) {
                resultsError = e;
            }
            throw e;
        }
    }

    private Results.Page readPageOnce(long after, int limit) {
        Outbox outbox = worker.outbox();
        String where = "reading the results of task " + task.taskId + " after task " + after;
        Outbox.PageRequest page = new Outbox.PageRequest(task.instanceId, task.taskId, after, limit);
        try {
            outbox.addPage(page);
        } catch (Outbox.Closed e) {
            throw new ResultsException(where + ": " + e.getMessage());
        }
        long timeout = worker.mapTimeout().toNanos();
        long deadline = System.nanoTime() + timeout;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (page.await(50)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                if (isCancelled()) {
                    outbox.abandonPage(page);
                    throw new ResultsException(where + ": " + getCancelReason());
                }
                if (System.nanoTime() - deadline >= 0) {
                    outbox.abandonPage(page);
                    throw new ResultsException(where + ": the server did not answer within " + Cause.seconds(worker.mapTimeout())
                            + " (connected: " + worker.isConnected() + ")");
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (page.error() != null) {
            throw new ResultsException(where + ": " + page.error().getMessage());
        }
        return new Results.Page(page.results(), page.more());
    }

    ResultsException resultsError() {
        return resultsError;
    }

    Results results() {
        return results;
    }

    // Workflows.

    /** The workflow run's context: read it, add to it (sent with the final report). */
    public WorkflowContext getWorkflowContext() {
        return workflow;
    }

    /** A workflow node's direct upstream nodes: node key → result; empty outside workflows. */
    public Map<String, String> getUpstream() {
        return task.upstream;
    }

    /** The workflow run's id; 0 outside workflows. */
    public long getWorkflowRunId() {
        return task.workflowRunId;
    }

    /** The workflow node's key; "" outside workflows. */
    public String getWorkflowNode() {
        return task.workflowNode;
    }

    // Tracing.

    /**
     * The run's W3C trace context when it is traced (docs/tracing.md): the
     * {@code traceparent} of the server's span for this task, e.g.
     * {@code 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01};
     * "" when the run is not traced (or the server sent a value that is not
     * a valid traceparent, docs/protocol.md §8.5). Send it on as the
     * {@code traceparent} header of what the processor calls, or start the
     * processor's own span under it (README, "Traces"): this SDK starts
     * none itself.
     */
    public String getTraceparent() {
        return task.traceparent;
    }

    // Cancellation.

    /** Whether the task was stopped, timed out, or the worker is stopping. */

    public boolean isCancelled() {
        return cancelled.getCount() == 0;
    }

    /**
     * Why the task was cancelled ("stopped: …", "timed out after …", "worker
     * shutting down"), or null.
     */
    public String getCancelReason() {
        Cause c = cause;
        return c == null ? null : c.describe();
    }

    /**
     * Waits up to timeout for the task to be cancelled; returns whether it
     * was: a sleep that ends early when the task is stopped.
     */
    public boolean awaitCancelled(Duration timeout) throws InterruptedException {
        return cancelled.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits until the task is cancelled. */
    public void awaitCancelled() throws InterruptedException {
        cancelled.await();
    }

    Cause cause() {
        return cause;
    }

    /** Cancels the task once; the first cause counts. */
    void cancel(Cause c) {
        synchronized (this) {
            if (cause != null) {
                return;
            }
            cause = c;
            cancelled.countDown();
        }
        for (Runnable r : onCancel) {
            r.run();
        }
    }

    /** Runs r when the task is cancelled (at once if it is). */
    void whenCancelled(Runnable r) {
        synchronized (this) {
            if (cause == null) {
                onCancel.add(r);
                return;
            }
        }
        r.run();
    }

    private final class Logger implements TaskLogger {
        @Override
        public void log(Level level, String messagePattern, Object... args) {
            worker.taskLine(task.instanceId, task.taskId, level == null ? Level.INFO : level,
                    LogFormat.format(messagePattern, args));
        }
    }

    @Override
    public String toString() {
        return "TaskContext(task " + task.taskId + ", instance " + task.instanceId + ", " + task.kind + ", " + task.processor + ")";
    }
}
