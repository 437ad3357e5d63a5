package io.jobwheel.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * What the worker owes the server, kept until the server acknowledges it
 * (docs/protocol.md §6.5).
 *
 * <p>Task reports, log lines, map requests and requests for pages of
 * results (§11.1) are queued here the moment they are produced. The
 * session's writer takes them in batches ({@link #take}), the reader hands
 * back the acks ({@link #ack}), and when a connection ends everything sent
 * but unacknowledged goes back to the front of its queue ({@link #requeue}),
 * to be sent again first on the next connection.
 *
 * <p>The ordering rules live here too: a task's final report is held back
 * until every log line logged before it has been acknowledged (rule 3), and
 * tasks whose final report is unacknowledged are still listed as running
 * (rule 4, see {@link #unackedFinals}).
 *
 * <p>Bounds: at most {@code window} messages in flight per connection;
 * queued log lines are bounded (the oldest are dropped and counted per
 * instance, the counts ride on the next logs message); queued reports are
 * bounded, but a report is never dropped: a task finishing into a full
 * queue waits.
 */
final class Outbox {
    /** Half a frame, leaving room for the envelope around the items. */
    static final int BATCH_BYTES = Protocol.MAX_FRAME_BYTES / 2;
    /** How long logs and reports wait after the server refused them. */
    static final long RETRY_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The worker has stopped: nothing more can be queued. */
    static final class Closed extends Exception {
        Closed() {
            super("the worker has stopped");
        }
    }

    /** Set when the writer should send now rather than at its next tick. */
    static final class Wake {
        private boolean set;

        synchronized void set() {
            set = true;
            notifyAll();
        }

        /** Waits up to nanos for set(), then clears it. */
        synchronized void awaitAndClear(long nanos) throws InterruptedException {
            long end = System.nanoTime() + nanos;
            while (!set) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            set = false;
        }
    }

    /** One log line, numbered. */
    static final class LogLine {
        final long instanceId;
        final long taskId;
        long seq;
        final String time;
        final String level;
        final String text;
        final int size;

        LogLine(long instanceId, long taskId, String time, String level, String text) {
            this.instanceId = instanceId;
            this.taskId = taskId;
            this.time = time;
            this.level = level;
            this.text = text;
            // The numbers and the field names, generously, then the text.
            this.size = 120 + Protocol.jsonStringLength(text);
        }

        ObjectNode toJson() {
            ObjectNode o = Protocol.JSON.createObjectNode();
            o.put("instanceId", instanceId);
            if (taskId > 0) {
                o.put("taskId", taskId);
            }
            o.put("seq", seq);
            o.put("time", time);
            o.put("level", level);
            o.put("text", text);
            return o;
        }
    }

    static final class Report {
        final ObjectNode body;
        final long taskId;
        final boolean fin;
        final int size;
        long logMark; // a final report waits for every line up to this seq

        Report(ObjectNode body) {
            this.body = body;
            this.taskId = Protocol.integer(body, "taskId");
            this.fin = !Protocol.RUNNING.equals(Protocol.text(body, "status"));
            this.size = Protocol.encodedLength(body) + 1;
        }
    }

    /** One map message: part of a TaskContext.map call, which waits on it. */
    static final class MapChunk {
        final long instanceId;
        final long parentTaskId;
        final String name;
        final String key;
        final int first; // index of its first payload in the map call, for errors
        final List<String> payloads = new ArrayList<>();
        int size;
        volatile boolean abandoned; // the caller stopped waiting: do not (re-)send
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile Exception error;

        MapChunk(long instanceId, long parentTaskId, String name, String key, int first) {
            this.instanceId = instanceId;
            this.parentTaskId = parentTaskId;
            this.name = name;
            this.key = key;
            this.first = first;
            this.size = 200 + Protocol.jsonStringLength(name) + Protocol.jsonStringLength(key);
        }

        ObjectNode toJson() {
            ObjectNode o = Protocol.JSON.createObjectNode();
            o.put("instanceId", instanceId);
            o.put("parentTaskId", parentTaskId);
            o.put("name", name);
            ArrayNode p = o.putArray("payloads");
            payloads.forEach(p::add);
            o.put("key", key);
            return o;
        }

        /** Gives the caller the outcome; only the first one counts. */
        synchronized void settle(Exception err) {
            if (done.getCount() > 0) {
                error = err;
                done.countDown();
            }
        }

        /** True once settled (see error), false on timeout. */
        boolean await(long millis) throws InterruptedException {
            return done.await(millis, TimeUnit.MILLISECONDS);
        }

        Exception error() {
            return error;
        }
    }

    /**
     * One results message: a request for a page of a POST or REDUCE task's
     * results, which the task waits on. Reading is idempotent, so a request
     * in flight when a connection ends is sent again on the next.
     */
    static final class PageRequest {
        final long instanceId;
        final long taskId;
        final long after;
        final int limit;
        volatile boolean abandoned;
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile Exception error;
        private volatile List<TaskResult> results = List.of();
        private volatile boolean more;

        PageRequest(long instanceId, long taskId, long after, int limit) {
            this.instanceId = instanceId;
            this.taskId = taskId;
            this.after = after;
            this.limit = limit;
        }

        ObjectNode toJson() {
            ObjectNode o = Protocol.JSON.createObjectNode();
            o.put("instanceId", instanceId);
            o.put("taskId", taskId);
            o.put("after", after);
            o.put("limit", limit);
            return o;
        }

        synchronized void settle(Exception err, List<TaskResult> page, boolean more) {
            if (done.getCount() > 0) {
                this.error = err;
                this.results = page == null ? List.of() : page;
                this.more = more;
                done.countDown();
            }
        }

        boolean await(long millis) throws InterruptedException {
            return done.await(millis, TimeUnit.MILLISECONDS);
        }

        Exception error() {
            return error;
        }

        List<TaskResult> results() {
            return results;
        }

        boolean more() {
            return more;
        }
    }

    /** One report, logs, map or results frame in flight. */
    static final class Message {
        long id;
        final String type;
        final List<LogLine> lines = new ArrayList<>();
        Map<Long, Long> dropped = new LinkedHashMap<>();
        final List<Report> reports = new ArrayList<>();
        MapChunk chunk;
        PageRequest page;

        Message(String type) {
            this.type = type;
        }

        ObjectNode body() {
            switch (type) {
                case Protocol.LOGS: {
                    ObjectNode b = Protocol.JSON.createObjectNode();
                    ArrayNode a = b.putArray("lines");
                    for (LogLine l : lines) {
                        a.add(l.toJson());
                    }
                    if (!dropped.isEmpty()) {
                        ObjectNode d = b.putObject("dropped");
                        dropped.forEach((k, v) -> d.put(Long.toString(k), v));
                    }
                    return b;
                }
                case Protocol.REPORT: {
                    ObjectNode b = Protocol.JSON.createObjectNode();
                    ArrayNode a = b.putArray("items");
                    for (Report r : reports) {
                        a.add(r.body);
                    }
                    return b;
                }
                case Protocol.RESULTS:
                    return page.toJson();
                default:
                    return chunk.toJson();
            }
        }
    }

    private final System.Logger log;
    private final int maxLogs;
    private final int maxReports;
    private final int window;
    private final int urgent;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    final Wake wake = new Wake();

    private long seq;
    private final Deque<LogLine> logs = new ArrayDeque<>();
    private Map<Long, Long> dropped = new LinkedHashMap<>();
    private final Deque<Report> reports = new ArrayDeque<>();
    private final Deque<MapChunk> maps = new ArrayDeque<>();
    private final Deque<PageRequest> pages = new ArrayDeque<>();
    private final TreeMap<Long, Message> inflight = new TreeMap<>();
    private final Map<Long, Integer> finals = new HashMap<>();
    private boolean closed;
    private long holdUntil; // System.nanoTime(); 0: no hold
    private boolean holding;
    /**
     * How many map chunks the server has stored: a map call waiting behind
     * other tasks' chunks sees the server storing this worker's subtasks,
     * only slower than they come, and keeps waiting.
     */
    private volatile long mapsStored;

    Outbox(System.Logger log, int maxLogs, int maxReports) {
        this(log, maxLogs, maxReports, 8, 200);
    }

    Outbox(System.Logger log, int maxLogs, int maxReports, int window, int urgent) {
        this.log = log;
        this.maxLogs = Math.max(maxLogs, 1);
        this.maxReports = Math.max(maxReports, 1);
        this.window = window;
        this.urgent = urgent;
    }

    void poke() {
        wake.set();
    }

    long mapsStored() {
        return mapsStored;
    }

    private boolean urgentLocked() {
        return !maps.isEmpty() || !pages.isEmpty() || logs.size() >= urgent || reports.size() >= urgent;
    }

    /**
     * Queues a log line, numbering it. When the queue is full the oldest line
     * is dropped and counted.
     */
    void addLog(LogLine line) {
        boolean u;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            line.seq = ++seq;
            while (logs.size() >= maxLogs) {
                dropOldestLocked();
            }
            logs.addLast(line);
            u = urgentLocked();
        } finally {
            lock.unlock();
        }
        if (u) {
            poke();
        }
    }

    private void dropOldestLocked() {
        LogLine l = logs.removeFirst();
        dropped.merge(l.instanceId, 1L, Long::sum);
    }

    /**
     * Queues a task report, waiting for room if the queue is full (reports are
     * never dropped).
     */
    void addReport(ObjectNode body) throws Closed {
        Report r = new Report(body);
        boolean u;
        lock.lock();
        try {
            if (r.fin) {
                r.logMark = seq;
            }
            while (!closed && reports.size() >= maxReports) {
                room.awaitUninterruptibly();
            }
            if (closed) {
                throw new Closed();
            }
            reports.addLast(r);
            if (r.fin) {
                finals.merge(r.taskId, 1, Integer::sum);
            }
            u = urgentLocked();
        } finally {
            lock.unlock();
        }
        if (u) {
            poke();
        }
    }

    /** Queues the chunks of a map call; the writer is woken at once. */
    void addMaps(List<MapChunk> chunks) throws Closed {
        lock.lock();
        try {
            if (closed) {
                throw new Closed();
            }
            maps.addAll(chunks);
        } finally {
            lock.unlock();
        }
        poke();
    }

    /** Chunks whose caller stopped waiting are never sent (again). */
    void abandon(List<MapChunk> chunks) {
        lock.lock();
        try {
            for (MapChunk c : chunks) {
                c.abandoned = true;
            }
            maps.removeIf(c -> c.abandoned);
        } finally {
            lock.unlock();
        }
    }

    /** Queues a request for a page of results; the writer is woken at once. */
    void addPage(PageRequest p) throws Closed {
        lock.lock();
        try {
            if (closed) {
                throw new Closed();
            }
            pages.addLast(p);
        } finally {
            lock.unlock();
        }
        poke();
    }

    void abandonPage(PageRequest p) {
        lock.lock();
        try {
            p.abandoned = true;
            pages.removeIf(x -> x.abandoned);
        } finally {
            lock.unlock();
        }
    }

    /** The tasks whose final report the server has not acknowledged. */
    Set<Long> unackedFinals() {
        lock.lock();
        try {
            return new HashSet<>(finals.keySet());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether anything owed to the server is queued or unacknowledged (a
     * request for results is not: only its task, cancelled by then, waits
     * for it).
     */
    boolean pending() {
        lock.lock();
        try {
            boolean inflightOwed = inflight.values().stream().anyMatch(m -> !Protocol.RESULTS.equals(m.type));
            return !logs.isEmpty() || !reports.isEmpty() || !maps.isEmpty() || inflightOwed || !dropped.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fills the in-flight window with messages — maps and requests for
     * results first (a task waits for them), then logs, then reports — each
     * under an id from nextId. The caller sends them.
     */
    List<Message> take(LongSupplier nextId) {
        List<Message> out = new ArrayList<>();
        lock.lock();
        try {
            boolean tookReports = false;
            while (inflight.size() < window) {
                Message m = nextLocked();
                if (m == null) {
                    break;
                }
                tookReports |= Protocol.REPORT.equals(m.type);
                m.id = nextId.getAsLong();
                inflight.put(m.id, m);
                out.add(m);
            }
            if (tookReports) {
                room.signalAll();
            }
        } finally {
            lock.unlock();
        }
        return out;
    }

    private Message nextLocked() {
        while (!maps.isEmpty()) {
            MapChunk c = maps.removeFirst();
            if (!c.abandoned) {
                Message m = new Message(Protocol.MAP);
                m.chunk = c;
                return m;
            }
        }
        while (!pages.isEmpty()) {
            PageRequest p = pages.removeFirst();
            if (!p.abandoned) {
                Message m = new Message(Protocol.RESULTS);
                m.page = p;
                return m;
            }
        }
        if (holding) {
            if (System.nanoTime() - holdUntil < 0) {
                return null;
            }
            holding = false;
        }
        if (!logs.isEmpty() || !dropped.isEmpty()) {
            Message m = new Message(Protocol.LOGS);
            int size = 0;
            while (!logs.isEmpty() && m.lines.size() < Protocol.MAX_BATCH) {
                LogLine l = logs.peekFirst();
                if (!m.lines.isEmpty() && size + l.size > BATCH_BYTES) {
                    break;
                }
                size += l.size;
                m.lines.add(logs.removeFirst());
            }
            if (!dropped.isEmpty()) {
                m.dropped = dropped;
                dropped = new LinkedHashMap<>();
            }
            return m;
        }
        if (!reports.isEmpty()) {
            Message m = new Message(Protocol.REPORT);
            int size = 0;
            long unacked = firstUnackedLogLocked();
            while (!reports.isEmpty() && m.reports.size() < Protocol.MAX_BATCH) {
                Report r = reports.peekFirst();
                if (r.logMark > 0 && unacked > 0 && r.logMark >= unacked) {
                    break; // its lines are not all stored yet
                }
                if (!m.reports.isEmpty() && size + r.size > BATCH_BYTES) {
                    break;
                }
                size += r.size;
                m.reports.add(reports.removeFirst());
            }
            if (!m.reports.isEmpty()) {
                return m;
            }
        }
        return null;
    }

    private long firstUnackedLogLocked() {
        long first = logs.isEmpty() ? 0 : logs.peekFirst().seq;
        for (Message m : inflight.values()) {
            if (Protocol.LOGS.equals(m.type) && !m.lines.isEmpty()) {
                long s = m.lines.get(0).seq;
                if (first == 0 || s < first) {
                    first = s;
                }
            }
        }
        return first;
    }

    private void settleFinalsLocked(Message m) {
        for (Report r : m.reports) {
            if (!r.fin) {
                continue;
            }
            Integer n = finals.get(r.taskId);
            if (n == null || n <= 1) {
                finals.remove(r.taskId);
            } else {
                finals.put(r.taskId, n - 1);
            }
        }
    }

    /**
     * Settles the message the server answered. A refused map or results
     * request is final: its caller gets the server's reason. A refused report
     * or logs message is kept and sent again after a pause (§6.3: the server
     * refuses them only for reasons that pass, and de-duplicates what it gets
     * twice).
     */
    void ack(long id, JsonNode ack) {
        Message m;
        boolean ok;
        boolean u;
        lock.lock();
        try {
            m = inflight.remove(id);
            if (m == null) {
                return; // an ack for something else, or a duplicate
            }
            ok = ack.path("ok").asBoolean(false);
            if (ok || Protocol.MAP.equals(m.type) || Protocol.RESULTS.equals(m.type)) {
                settleFinalsLocked(m);
            } else {
                requeueLocked(List.of(m));
                holding = true;
                holdUntil = System.nanoTime() + RETRY_PAUSE_NANOS;
            }
            if (ok && m.chunk != null) {
                mapsStored++;
            }
            u = urgentLocked() || (Protocol.LOGS.equals(m.type) && !reports.isEmpty());
        } finally {
            lock.unlock();
        }
        if (u) {
            poke();
        }
        String reason = Protocol.text(ack, "error");
        if (reason.isEmpty()) {
            reason = "no reason given";
        }
        if (m.page != null) {
            if (ok) {
                m.page.settle(null, Task.results(ack.get("results")), ack.path("more").asBoolean(false));
            } else {
                m.page.settle(new Exception("the server refused to read results: " + reason), null, false);
            }
            return;
        }
        if (ok) {
            if (m.chunk != null) {
                m.chunk.settle(null);
            }
            return;
        }
        if (m.chunk != null) {
            MapChunk c = m.chunk;
            c.settle(new Exception("the server refused subtasks " + c.first + ".." + (c.first + c.payloads.size() - 1)
                    + ": " + reason));
        } else {
            boolean lines = !m.lines.isEmpty();
            log.log(System.Logger.Level.WARNING, "the server refused {0} {1}; sending them again in 1s: {2}",
                    lines ? m.lines.size() : m.reports.size(), lines ? "log lines" : "task reports", reason);
        }
    }

    /**
     * Forgets a message that cannot be encoded (it can never be sent); a map
     * or results caller is told why.
     */
    void discard(long id, Exception err) {
        Message m;
        lock.lock();
        try {
            m = inflight.remove(id);
            if (m == null) {
                return;
            }
            settleFinalsLocked(m);
        } finally {
            lock.unlock();
        }
        log.log(System.Logger.Level.ERROR, "dropping a {0} message that cannot be sent: {1}", m.type, err.getMessage());
        if (m.chunk != null) {
            m.chunk.settle(err);
        }
        if (m.page != null) {
            m.page.settle(err, null, false);
        }
    }

    private void requeueLocked(List<Message> msgs) {
        List<LogLine> lines = new ArrayList<>();
        List<Report> reps = new ArrayList<>();
        List<MapChunk> chunks = new ArrayList<>();
        List<PageRequest> pgs = new ArrayList<>();
        for (Message m : msgs) {
            if (m.page != null && !m.page.abandoned) {
                pgs.add(m.page);
            }
            lines.addAll(m.lines);
            reps.addAll(m.reports);
            if (m.chunk != null && !m.chunk.abandoned) {
                chunks.add(m.chunk);
            }
            m.dropped.forEach((k, v) -> dropped.merge(k, v, Long::sum));
        }
        for (int i = lines.size() - 1; i >= 0; i--) {
            logs.addFirst(lines.get(i));
        }
        for (int i = reps.size() - 1; i >= 0; i--) {
            reports.addFirst(reps.get(i));
        }
        for (int i = chunks.size() - 1; i >= 0; i--) {
            maps.addFirst(chunks.get(i));
        }
        for (int i = pgs.size() - 1; i >= 0; i--) {
            pages.addFirst(pgs.get(i));
        }
        while (logs.size() > maxLogs) {
            dropOldestLocked();
        }
    }

    /**
     * After a connection ended: everything unacknowledged goes back to the
     * front of its queue, oldest first.
     */
    void requeue() {
        lock.lock();
        try {
            List<Message> msgs = new ArrayList<>(inflight.values()); // by id: the order they were sent
            inflight.clear();
            requeueLocked(msgs);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the outbox: queued map calls and requests for results fail, and
     * tasks waiting for room in the report queue are released.
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            while (!maps.isEmpty()) {
                maps.removeFirst().settle(new Closed());
            }
            while (!pages.isEmpty()) {
                pages.removeFirst().settle(new Closed(), null, false);
            }
            room.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
