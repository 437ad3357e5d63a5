package io.jobwheel.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jobwheel.worker.xxl.IJobHandler;
import io.jobwheel.worker.xxl.XxlJob;

import java.io.IOException;
import java.io.InputStream;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.ERROR;
import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * A jobwheel worker for one app, embedded in a Java service: register
 * processors, then {@link #run()} (blocks) or {@link #start()} (in the
 * background) until {@link #stop()} or {@link #close()}.
 *
 * <pre>{@code
 * Worker w = new Worker(WorkerConfig.fromEnv().build());
 * w.register(new SyncOrders());                   // a BasicProcessor, named by its class
 * w.register("squares", new Squares());           // a MapReduceProcessor, named "squares"
 * w.registerHandlers(new XxlStyleJobs());         // its @JobHandler (or xxl-job's @XxlJob) methods
 * w.run();                                        // reconnects by itself; returns after stop()
 * }</pre>
 *
 * <p>It speaks the worker protocol (docs/protocol.md): it asks any known
 * server which one owns the app (learning the others), connects there with
 * the app's secret, heart-beats at the interval the server gives, accepts
 * or rejects each dispatched task (another app, a stale epoch, an unknown
 * processor, no free slot, shutting down) and never runs one twice, reports
 * RUNNING then one final status, keeps every report, log line and map
 * request until the server acknowledges it and sends it again after a
 * reconnect (a refused report or log message too, after a pause), sends a
 * task's final report only after its lines are stored, reads a POST or
 * REDUCE task's results in pages, follows redirects, and reconnects with a
 * jittered back-off. Running tasks keep running while it reconnects. A
 * task dispatched ahead with a start time (feature start.at) is held,
 * listed as running, until that time by a timer, and a stop may end or take
 * it back unstarted. On stop it takes no new task, hands held tasks back,
 * cancels (interrupts) the running ones — they end FAILED so the server may
 * retry them elsewhere — and waits for their reports.
 */
public final class Worker implements AutoCloseable {
    /** Stated in hello unless the config says otherwise. */
    public static final String SDK_VERSION = "jobwheel-java/0.1";

    private static final System.Logger TASK_LOG = System.getLogger("io.jobwheel.worker.task");
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(15);

    private final WorkerConfig cfg;
    private final System.Logger log;
    private final String workerId;
    private final Outbox outbox;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition reported = lock.newCondition();
    private final Map<String, Registered> processors = new TreeMap<>();
    private final List<HandlerProcessor> handlers = new ArrayList<>();
    private final Map<Long, TaskRun> running = new HashMap<>();
    private int busy; // slots taken: tasks not yet reported, and abandoned ones
    private int unreported; // tasks whose final report is not queued yet
    private long epoch;
    private boolean closing;
    private List<String> learned = List.of();
    private String redirectTo = "";
    private int rotate;
    private boolean connected;
    private boolean started;
    private List<JobChange> jobChanges;
    private volatile Session session;
    private volatile Throwable failure;

    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch loopStop = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);

    private ExecutorService slotPool;
    private ScheduledThreadPoolExecutor timers;
    private HttpClient http;

    /** A worker with these settings; nothing starts until run() or start(). */
    public Worker(WorkerConfig cfg) {
        this.cfg = cfg;
        this.log = cfg.logger != null ? cfg.logger : System.getLogger("io.jobwheel.worker");
        byte[] b = new byte[6];
        new SecureRandom().nextBytes(b);
        this.workerId = cfg.name + "-" + HexFormat.of().formatHex(b);
        this.outbox = new Outbox(log, cfg.maxBufferedLogLines, cfg.maxBufferedReports);
    }

    /** A processor with the class it came from (its package may name subtask classes). */
    static final class Registered {
        final String name;
        final BasicProcessor processor;
        final Class<?> type;

        Registered(String name, BasicProcessor processor, Class<?> type) {
            this.name = name;
            this.processor = processor;
            this.type = type;
        }
    }

    // Processors.

    /**
     * Makes processor the GO processor called name: tasks whose job has
     * processorType GO and that processor name run it. A
     * {@link BroadcastProcessor} also runs a BROADCAST job's pre- and
     * post-process, a {@link MapReduceProcessor} a MAP_REDUCE job's reduce.
     * Processors registered while the worker runs are announced at its next
     * connection.
     */
    public Worker register(String name, BasicProcessor processor) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("register: empty processor name");
        }
        if (processor == null) {
            throw new IllegalArgumentException("register " + name + ": the processor is null");
        }
        add(new Registered(name, processor, userClass(processor.getClass())));
        return this;
    }

    /**
     * Registers processor under its class's name (e.g.
     * {@code com.acme.jobs.SyncOrders}), which is what PowerJob keeps as a
     * BUILT_IN job's processor: imported jobs find it unchanged.
     */
    public Worker register(BasicProcessor processor) {
        if (processor == null) {
            throw new IllegalArgumentException("register: the processor is null");
        }
        Class<?> c = userClass(processor.getClass());
        if (c.isSynthetic() || c.isAnonymousClass() || c.getName().contains("$$Lambda") || c.isHidden()) {
            throw new IllegalArgumentException("register: a lambda or anonymous class has no lasting name; use register(name, processor)");
        }
        add(new Registered(c.getName(), processor, c));
        return this;
    }

    /**
     * The class a generated proxy (Spring's CGLIB, ByteBuddy: a name with
     * "$$") stands for: the one the user wrote.
     */
    static Class<?> userClass(Class<?> c) {
        while (c.getName().contains("$$") && !c.getName().contains("$$Lambda") && c.getSuperclass() != null
                && c.getSuperclass() != Object.class) {
            c = c.getSuperclass();
        }
        return c;
    }

    /**
     * Makes xxl-job's {@link IJobHandler} the GO processor called name (where
     * xxl-job's code called {@code XxlJobExecutor.registJobHandler(name,
     * handler)}): its {@code init()} runs before its first run, its
     * {@code destroy()} when the worker stops.
     */
    public Worker register(String name, IJobHandler handler) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("register: empty processor name");
        }
        if (handler == null) {
            throw new IllegalArgumentException("register " + name + ": the handler is null");
        }
        addHandlers(List.of(HandlerProcessor.of(name, handler)), userClass(handler.getClass()));
        return this;
    }

    /**
     * Registers every method of bean annotated {@link JobHandler} or
     * xxl-job's {@link XxlJob} under its annotation's name; returns the
     * names.
     */
    public List<String> registerHandlers(Object bean) {
        List<HandlerProcessor> found = HandlerProcessor.scan(bean);
        if (found.isEmpty()) {
            throw new IllegalArgumentException("registerHandlers: " + bean.getClass().getName() + " has no @JobHandler or @XxlJob method");
        }
        return addHandlers(found, userClass(bean.getClass()));
    }

    private List<String> addHandlers(List<HandlerProcessor> found, Class<?> type) {
        List<String> names = new ArrayList<>();
        lock.lock();
        try {
            for (HandlerProcessor h : found) {
                if (processors.containsKey(h.name) || names.contains(h.name)) {
                    throw new IllegalArgumentException("register: processor " + h.name + " registered twice");
                }
                names.add(h.name);
            }
            for (HandlerProcessor h : found) {
                processors.put(h.name, new Registered(h.name, h, type));
                handlers.add(h);
            }
        } finally {
            lock.unlock();
        }
        return names;
    }

    private void add(Registered r) {
        lock.lock();
        try {
            if (processors.containsKey(r.name)) {
                throw new IllegalArgumentException("register: processor " + r.name + " registered twice");
            }
            processors.put(r.name, r);
        } finally {
            lock.unlock();
        }
    }

    // State.

    /** The worker's id on the wire: its name and a random suffix, new in each process. */
    public String getWorkerId() {
        return workerId;
    }

    /** Whether it is connected to a server now. */
    public boolean isConnected() {
        lock.lock();
        try {
            return connected;
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the server did with the declared jobs at the last connect (or in a
     * dry run would do); null before the first connect or without a job set.
     */
    public List<JobChange> getJobChanges() {
        lock.lock();
        try {
            return jobChanges == null ? null : List.copyOf(jobChanges);
        } finally {
            lock.unlock();
        }
    }

    /** Why run() ended, if it ended by an error (an AuthException: the secret was refused). */
    public Throwable getFailure() {
        return failure;
    }

    Outbox outbox() {
        return outbox;
    }

    Duration mapTimeout() {
        return cfg.mapTimeout;
    }

    Path workDir() {
        return cfg.workDir;
    }

    // Running.

    /**
     * Runs the worker on a thread of its own ("jobwheel-worker") and returns
     * at once: for a service that starts it with itself, e.g. a Spring bean's
     * init method. {@link #close()} stops it.
     */
    public void start() {
        claim("start");
        Thread t = new Thread(() -> {
            try {
                runClaimed();
            } catch (RuntimeException | Error e) {
                // Kept for getFailure(); runClaimed() logged it.
            }
        }, "jobwheel-worker");
        t.start();
    }

    /** Marks the worker started; a worker runs once. */
    private void claim(String how) {
        lock.lock();
        try {
            if (started) {
                throw new IllegalStateException("Worker." + how + ": the worker was started already");
            }
            started = true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Asks the worker to stop: no new tasks, running ones are cancelled and
     * reported, and what is queued is sent (within the shutdown timeout).
     * Returns at once; safe from any thread, also before run().
     */
    public void stop() {
        stopRequested.countDown();
    }

    /**
     * Stops the worker and waits until it has (at most the shutdown timeout
     * and a few seconds more): for a service's shutdown, e.g. a Spring bean's
     * destroy method.
     */
    @Override
    public void close() {
        stop();
        lock.lock();
        boolean wasStarted;
        try {
            wasStarted = started;
        } finally {
            lock.unlock();
        }
        if (!wasStarted) {
            return;
        }
        try {
            if (!finished.await(cfg.shutdownTimeout.toMillis() + 5000, TimeUnit.MILLISECONDS)) {
                log.log(WARNING, "Worker.close: the worker had not stopped after the shutdown timeout; returning anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to timeout for run() to return; whether it did. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return finished.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Connects and runs tasks until {@link #stop()} (returns) or the server
     * refuses the secret (throws {@link AuthException}), reconnecting by
     * itself meanwhile. An interrupt of the calling thread stops it too.
     */
    public void run() {
        claim("run");
        runClaimed();
    }

    private void runClaimed() {
        StringBuilder threads = new StringBuilder();
        slotPool = Slots.executor(cfg.slots, cfg.virtualThreads, threads);
        timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "jobwheel-timer");
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(HANDSHAKE_TIMEOUT)
                .proxy(ProxySelector.getDefault())
                .build();
        log.log(INFO, () -> "worker " + workerId + " starting for app " + cfg.app + ": " + cfg.slots + " slots on "
                + threads + "; processors " + String.join(", ", names()));
        CountDownLatch loopDone = new CountDownLatch(1);
        Throwable[] outcome = new Throwable[1];
        Thread loop = new Thread(() -> {
            try {
                connectLoop();
            } catch (Throwable e) {
                outcome[0] = e;
            } finally {
                loopDone.countDown();
                stopRequested.countDown();
            }
        }, "jobwheel-connection");
        loop.setDaemon(true);
        loop.start();
        boolean interrupted = false;
        while (true) {
            try {
                stopRequested.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
                stop();
            }
        }
        try {
            shutdown(loopDone.getCount() > 0, true);
            loopStop.countDown();
            Session s = session;
            if (s != null) {
                s.end(null, null);
            }
            joinQuietly(loop);
            outbox.close();
            slotPool.shutdownNow();
            timers.shutdownNow();
            destroyHandlers();
        } finally {
            failure = outcome[0];
            finished.countDown();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (outcome[0] != null) {
            log.log(ERROR, () -> "worker stopped: " + outcome[0].getMessage());
            if (outcome[0] instanceof RuntimeException) {
                throw (RuntimeException) outcome[0];
            }
            if (outcome[0] instanceof Error) {
                throw (Error) outcome[0];
            }
            throw new IllegalStateException(outcome[0]);
        }
        log.log(INFO, "worker stopped");
    }

    /** xxl-job's destroy methods, of the handlers whose init ran. */
    private void destroyHandlers() {
        for (HandlerProcessor h : handlers) {
            String err = h.destroy();
            if (err != null) {
                log.log(WARNING, err);
            }
        }
    }

    private static void joinQuietly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Cancels the running tasks; graceful: waits (within the shutdown
     * timeout) for their final reports, and with acks for the server to
     * acknowledge everything queued.
     */
    private void shutdown(boolean graceful, boolean acks) {
        List<TaskRun> list;
        List<TaskRun> held;
        lock.lock();
        try {
            closing = true;
            list = new ArrayList<>(running.values());
            held = unholdLocked(list);
            list.removeAll(held);
        } finally {
            lock.unlock();
        }
        // Tasks held for their start time are handed back at once (§13.3):
        // the server dispatches them again elsewhere, in time, rather than
        // this worker starting them while it stops.
        endUnheld(held, Protocol.FAILED, "handed back before it started: worker " + workerId + " is shutting down", Protocol.REASON_HANDED_BACK);
        for (TaskRun rt : list) {
            rt.ctx.cancel(new Cause.ShuttingDown());
        }
        if (!graceful) {
            return;
        }
        if (!held.isEmpty()) {
            log.log(INFO, () -> "worker stopping: handed back " + held.size() + " tasks held for their start time");
        }
        if (!list.isEmpty()) {
            log.log(INFO, () -> "worker stopping: cancelled " + list.size() + " running tasks");
        }
        long deadline = System.nanoTime() + cfg.shutdownTimeout.toNanos();
        lock.lock();
        try {
            while (unreported > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    Set<Long> ids = new TreeSet<>(running.keySet());
                    log.log(WARNING, () -> "worker stopping: tasks still running after the shutdown timeout: " + ids);
                    return;
                }
                reported.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } finally {
            lock.unlock();
        }
        while (acks && outbox.pending()) {
            if (System.nanoTime() - deadline >= 0) {
                log.log(WARNING, "worker stopping: reports or logs not acknowledged before the shutdown timeout");
                return;
            }
            outbox.poke();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private List<String> names() {
        lock.lock();
        try {
            return new ArrayList<>(processors.keySet());
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the server must still consider running: tasks not finished, and
     * finished ones whose final report is unacknowledged (§6.5 rule 4).
     */
    List<Long> runningIds() {
        // Running tasks first, then the unacked finals: a task whose final
        // report is queued in between is in the second set.
        Set<Long> ids = new TreeSet<>();
        lock.lock();
        try {
            running.forEach((id, rt) -> {
                if (!rt.finalSent) {
                    ids.add(id);
                }
            });
        } finally {
            lock.unlock();
        }
        ids.addAll(outbox.unackedFinals());
        return new ArrayList<>(ids);
    }

    ObjectNode hello() {
        ObjectNode h = Protocol.JSON.createObjectNode();
        h.put("app", cfg.app);
        h.put("workerId", workerId);
        h.put("host", cfg.host);
        h.put("version", cfg.version);
        h.put("protocol", Protocol.VERSION);
        ArrayNode tags = h.putArray("tags");
        cfg.tags.forEach(tags::add);
        ArrayNode procs = h.putArray("processors");
        names().forEach(procs::add);
        h.putArray("types");
        h.put("slots", cfg.slots);
        h.put("auth", cfg.secret);
        ArrayNode run = h.putArray("running");
        runningIds().forEach(run::add);
        h.set("metrics", Metrics.read(cfg.workDir));
        h.putArray("features").add(Protocol.FEATURE_RESULTS_PAGED).add(Protocol.FEATURE_START_AT);
        if (!cfg.jobSet.isEmpty()) {
            h.put("jobSet", cfg.jobSet);
            if (!cfg.jobs.isEmpty()) {
                ArrayNode jobs = h.putArray("jobs");
                cfg.jobs.forEach(j -> jobs.add(j.toWire()));
            }
            if (cfg.jobsDryRun) {
                h.put("jobsDryRun", true);
            }
        }
        return h;
    }

    ObjectNode heartbeat() {
        ObjectNode b = Protocol.JSON.createObjectNode();
        b.set("metrics", Metrics.read(cfg.workDir));
        ArrayNode run = b.putArray("running");
        runningIds().forEach(run::add);
        return b;
    }

    // The connection loop.

    /** A full-jitter delay after n consecutive failures: uniform in (0, d], d = min × 2ⁿ capped. */
    long backoffNanos(int n) {
        long d = cfg.backoffMin.toNanos();
        long max = cfg.backoffMax.toNanos();
        for (int i = 0; i < n && d < max; i++) {
            d *= 2;
        }
        d = Math.min(d, max);
        return 1 + ThreadLocalRandom.current().nextLong(d);
    }

    private void connectLoop() throws InterruptedException {
        int fails = 0; // consecutive attempts that did not reach welcome
        while (loopStop.getCount() > 0) {
            Attempt a = connectOnce();
            if (loopStop.getCount() == 0) {
                return;
            }
            if (a.err instanceof AuthException) {
                log.log(ERROR, () -> "stopping: " + a.err.getMessage());
                throw (AuthException) a.err;
            }
            fails = a.established ? 0 : fails + 1;
            long delay = backoffNanos(fails);
            boolean rehome = a.err instanceof Redirected
                    || a.err instanceof ServerError && Protocol.CODE_NOT_OWNER.equals(((ServerError) a.err).code);
            if (rehome && fails <= 2) {
                delay = 0;
            }
            String what = a.established ? "disconnected from the server; reconnecting" : "connecting to the server failed; retrying";
            long d = delay;
            log.log(WARNING, () -> what + " in " + String.format(java.util.Locale.ROOT, "%.3fs", d / 1e9) + ": " + describe(a.err));
            if (delay > 0 && loopStop.await(delay, TimeUnit.NANOSECONDS)) {
                return;
            }
        }
    }

    private static String describe(Throwable e) {
        if (e == null) {
            return "stopping";
        }
        String m = e.getMessage();
        return m == null || m.isEmpty() ? e.toString() : m;
    }

    static final class Attempt {
        final boolean established;
        final Exception err;

        Attempt(boolean established, Exception err) {
            this.established = established;
            this.err = err;
        }
    }

    /** An error frame from the server (other than AUTH). */
    static final class ServerError extends Exception {
        final String code;

        ServerError(String code, String message) {
            super("server error " + code + ": " + (message == null || message.isEmpty() ? "no reason given" : message));
            this.code = code;
        }
    }

    /** The server sent redirect. */
    static final class Redirected extends Exception {
        Redirected(String server, String reason) {
            super("redirected " + (server.isEmpty() ? "(no server named; discovering again)" : "to " + server) + ": "
                    + (reason.isEmpty() ? "no reason given" : reason));
        }
    }

    /** The server sent a frame the worker cannot use. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message);
        }
    }

    static final class DiscoveryError extends Exception {
        DiscoveryError(String message) {
            super(message);
        }
    }

    private Attempt connectOnce() {
        String target;
        lock.lock();
        try {
            target = redirectTo;
            redirectTo = "";
        } finally {
            lock.unlock();
        }
        Session s;
        String url;
        try {
            if (target.isEmpty()) {
                target = discover();
            }
            url = connectURL(target);
            s = Session.open(this, http, url, HANDSHAKE_TIMEOUT);
        } catch (AuthException e) {
            return new Attempt(false, e);
        } catch (Exception e) {
            return new Attempt(false, e);
        }
        session = s;
        try {
            ObjectNode welcome;
            try {
                welcome = s.handshake(HANDSHAKE_TIMEOUT);
            } catch (Exception e) {
                s.abort();
                return new Attempt(false, e);
            }
            if (welcome == null) { // stopping
                s.abort();
                return new Attempt(false, null);
            }
            welcomed(welcome, url);
            try {
                return new Attempt(true, s.serve(welcome));
            } finally {
                lock.lock();
                try {
                    connected = false;
                } finally {
                    lock.unlock();
                }
                outbox.requeue();
            }
        } finally {
            session = null;
        }
    }

    boolean stopping() {
        return loopStop.getCount() == 0;
    }

    void redirectTo(String server) {
        lock.lock();
        try {
            redirectTo = server == null ? "" : server;
        } finally {
            lock.unlock();
        }
    }

    private void welcomed(ObjectNode welcome, String url) {
        long e = Protocol.integer(welcome, "epoch");
        List<JobChange> changes = new ArrayList<>();
        for (JsonNode c : welcome.path("jobChanges")) {
            List<String> fields = new ArrayList<>();
            c.path("fields").forEach(f -> fields.add(f.asText()));
            changes.add(new JobChange(Protocol.text(c, "name"), Protocol.text(c, "action"), fields, Protocol.text(c, "error")));
        }
        lock.lock();
        try {
            if (e < epoch) {
                long seen = epoch;
                log.log(WARNING, () -> "the server's epoch " + e + " is older than " + seen + ", seen before; its dispatches will be rejected");
            }
            epoch = Math.max(epoch, e);
            List<String> servers = new ArrayList<>();
            welcome.path("servers").forEach(s -> servers.add(s.asText()));
            if (!servers.isEmpty()) {
                learned = servers;
            }
            connected = true;
            if (!cfg.jobSet.isEmpty()) {
                jobChanges = changes;
            }
        } finally {
            lock.unlock();
        }
        log.log(INFO, () -> "connected to " + url + " (server " + Protocol.text(welcome, "serverId") + ", epoch " + e + ")");
        for (JobChange c : changes) {
            if (JobChange.REFUSED.equals(c.getAction())) {
                // A job of that name this set does not manage: left alone.
                log.log(WARNING, () -> "declared job " + c.getName() + " of set " + cfg.jobSet + " refused: " + c.getError());
                continue;
            }
            if (!JobChange.UNCHANGED.equals(c.getAction()) || cfg.jobsDryRun) {
                log.log(INFO, () -> "declared job " + c.getName() + " of set " + cfg.jobSet + ": " + c.getAction()
                        + (c.getFields().isEmpty() ? "" : " " + String.join(",", c.getFields()))
                        + (cfg.jobsDryRun ? " (dry run)" : ""));
            }
        }
    }

    /**
     * The configured servers then those learned from the servers, without
     * duplicates, starting one further each call so a dead server does not
     * always cost the first try.
     */
    private List<String> serverList() {
        lock.lock();
        try {
            List<String> out = new ArrayList<>();
            List<String> all = new ArrayList<>(cfg.servers);
            all.addAll(learned);
            for (String s : all) {
                s = s.replaceAll("/+$", "");
                if (!s.isEmpty() && !out.contains(s)) {
                    out.add(s);
                }
            }
            if (!out.isEmpty()) {
                int k = rotate % out.size();
                rotate++;
                List<String> r = new ArrayList<>(out.subList(k, out.size()));
                r.addAll(out.subList(0, k));
                return r;
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    private String discover() throws DiscoveryError {
        List<String> errs = new ArrayList<>();
        for (String base : serverList()) {
            try {
                return discoverAt(base);
            } catch (DiscoveryError e) {
                errs.add(e.getMessage());
            }
            if (stopping()) {
                break;
            }
        }
        throw new DiscoveryError("discovery failed: " + String.join("; ", errs));
    }

    private String discoverAt(String base) throws DiscoveryError {
        String url = base + Protocol.DISCOVER_PATH + "?app=" + URLEncoder.encode(cfg.app, StandardCharsets.UTF_8).replace("+", "%20");
        HttpRequest req;
        try {
            // Discovery answers only those who know the app's secret (§2.1).
            req = HttpRequest.newBuilder(new URI(url))
                    .timeout(cfg.discoverTimeout)
                    .header("Accept", "application/json")
                    .header("Authorization", "Bearer " + cfg.secret)
                    .GET().build();
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new DiscoveryError("GET " + url + ": " + e.getMessage());
        }
        HttpResponse<InputStream> resp;
        byte[] body;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = resp.body()) {
                body = in.readNBytes(1 << 20);
            }
        } catch (IOException e) {
            throw new DiscoveryError("GET " + url + ": " + describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DiscoveryError("GET " + url + ": interrupted");
        }
        String text = new String(body, StandardCharsets.UTF_8).strip();
        if (resp.statusCode() == 403) {
            throw new AuthException("GET " + url + ": the server refused the app secret for app \"" + cfg.app + "\": "
                    + Protocol.truncate(text, 300));
        }
        if (resp.statusCode() != 200) {
            throw new DiscoveryError("GET " + url + ": HTTP " + resp.statusCode() + ": " + Protocol.truncate(text, 300));
        }
        JsonNode d;
        try {
            d = Protocol.JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new DiscoveryError("GET " + url + ": bad answer: " + e.getOriginalMessage());
        }
        String server = d == null ? "" : Protocol.text(d, "server");
        if (server.isEmpty()) {
            throw new DiscoveryError("GET " + url + ": no server owns app \"" + cfg.app + "\" yet");
        }
        List<String> servers = new ArrayList<>();
        d.path("servers").forEach(s -> {
            if (s.isTextual()) {
                servers.add(s.asText());
            }
        });
        if (!servers.isEmpty()) {
            lock.lock();
            try {
                learned = servers;
            } finally {
                lock.unlock();
            }
        }
        return server;
    }

    static String connectURL(String base) throws URISyntaxException {
        URI u = new URI(base);
        String scheme;
        switch (u.getScheme() == null ? "" : u.getScheme()) {
            case "http":
            case "ws":
                scheme = "ws";
                break;
            case "https":
            case "wss":
                scheme = "wss";
                break;
            default:
                throw new URISyntaxException(base, "the scheme must be http or https");
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath().replaceAll("/+$", "");
        return scheme + "://" + u.getRawAuthority() + path + Protocol.CONNECT_PATH;
    }

    /** The error an error frame from the server stands for. */
    Exception serverError(JsonNode body) {
        String code = Protocol.text(body, "code");
        String message = Protocol.text(body, "message");
        if (Protocol.CODE_AUTH.equals(code)) {
            return new AuthException("the server refused the app secret for app \"" + cfg.app + "\": "
                    + (message.isEmpty() ? "no reason given" : message));
        }
        return new ServerError(code, message);
    }

    System.Logger log() {
        return log;
    }

    Duration flushInterval() {
        return cfg.flushInterval;
    }

    // Tasks.

    /** A task between its acceptance and the end of its processor. */
    final class TaskRun {
        final Task task;
        final TaskContext ctx;
        final Registered reg;
        final AtomicBoolean finalized = new AtomicBoolean(); // its end is reported (by its thread, or as abandoned)
        boolean finalSent; // its final report is queued: no longer listed as running by itself
        private Thread thread; // while in the processor
        private ScheduledFuture<?> deadlineTimer;
        volatile long startNanos = System.nanoTime(); // again when a held task starts
        // Accepted with a startAt in the future and not started (nor ended)
        // yet: whoever turns it false (its start timer, a stop, the
        // shutdown, its deadline) decides what becomes of it. Guarded by
        // the worker's lock, as startTimer is.
        boolean held;
        private ScheduledFuture<?> startTimer;

        TaskRun(Task task, Registered reg) {
            this.task = task;
            this.reg = reg;
            this.ctx = new TaskContext(Worker.this, task, reg.type);
        }

        synchronized void enter() {
            thread = Thread.currentThread();
            if (ctx.isCancelled()) {
                thread.interrupt(); // cancelled before it started: its first wait ends at once
            }
        }

        synchronized void leave() {
            thread = null;
            Thread.interrupted(); // an interrupt meant for the processor stops here
        }

        synchronized void interrupt() {
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    private String lookupLocked(Task t, Registered[] out) {
        if (!Protocol.KINDS.contains(t.kind)) {
            return "unknown task kind \"" + t.kind + "\"";
        }
        if (!"GO".equals(t.processorType)) {
            return "processor type \"" + t.processorType + "\" is not supported by worker " + workerId
                    + " (a Java worker runs GO tasks: processors registered by name)";
        }
        Registered r = processors.get(t.processor);
        if (r == null) {
            return "no processor named \"" + t.processor + "\" is registered on worker " + workerId;
        }
        out[0] = r;
        return "";
    }

    /**
     * Decides, for each task of a dispatch, to run it or reject it, and
     * starts the accepted ones; returns the ack body (§8.3).
     */
    ObjectNode accept(ObjectNode d) {
        ObjectNode ack = Protocol.JSON.createObjectNode();
        ack.put("ok", true);
        ArrayNode accepted = ack.putArray("accepted");
        ArrayNode rejected = ack.putArray("rejected");
        String app = Protocol.text(d, "app");
        long e = Protocol.integer(d, "epoch");
        List<TaskRun> toStart = new ArrayList<>();
        List<TaskRun> toHold = new ArrayList<>();
        lock.lock();
        try {
            boolean stale = e < epoch;
            if (!stale) {
                epoch = e;
            }
            for (JsonNode tn : d.path("tasks")) {
                Task t = new Task(tn);
                Registered[] reg = new Registered[1];
                String reason;
                boolean full = false;
                if (!app.isEmpty() && !app.equals(cfg.app)) {
                    reason = "dispatch is for app \"" + app + "\"; worker " + workerId + " serves \"" + cfg.app + "\"";
                } else if (stale) {
                    reason = "stale epoch " + e + ": worker " + workerId + " has seen epoch " + epoch + " of app \"" + cfg.app + "\"";
                } else if (closing) {
                    reason = "worker " + workerId + " is shutting down";
                } else if (running.containsKey(t.taskId)) {
                    accepted.add(t.taskId); // sent again (an ack was lost): it runs already, once
                    continue;
                } else {
                    reason = lookupLocked(t, reg);
                    if (reason.isEmpty() && busy >= cfg.slots) {
                        reason = "no free slot: worker " + workerId + " runs " + cfg.slots + " tasks, its limit";
                        full = true;
                    }
                }
                if (!reason.isEmpty()) {
                    ObjectNode r = rejected.addObject();
                    r.put("taskId", t.taskId);
                    r.put("reason", reason);
                    if (full) {
                        r.put("code", Protocol.REJECT_FULL); // not the task's fault: the server sends it again
                    }
                    continue;
                }
                accepted.add(t.taskId);
                TaskRun rt = new TaskRun(t, reg[0]);
                running.put(t.taskId, rt);
                busy++;
                unreported++;
                if (t.startAt != null && t.startAt.isAfter(Instant.now())) {
                    // Dispatched ahead (feature start.at, §8.6): it holds
                    // its slot and is listed as running from now on, so
                    // the server does not take it for lost, but it starts
                    // at startAt.
                    rt.held = true;
                    toHold.add(rt);
                } else {
                    toStart.add(rt);
                }
            }
        } finally {
            lock.unlock();
        }
        for (TaskRun rt : toStart) {
            launch(rt);
        }
        for (TaskRun rt : toHold) {
            armStart(rt);
        }
        if (!toHold.isEmpty()) {
            log.log(DEBUG, () -> "holding " + toHold.size() + " tasks until their start time: "
                    + toHold.stream().map(rt -> rt.task.taskId + " at " + rt.task.startAt).collect(java.util.stream.Collectors.joining(", ")));
        }
        if (!rejected.isEmpty()) {
            log.log(WARNING, () -> "rejected dispatched tasks: " + rejected);
        }
        return ack;
    }

    /** Runs an accepted task on a slot thread. */
    private void launch(TaskRun rt) {
        try {
            slotPool.execute(() -> execute(rt));
        } catch (RejectedExecutionException ex) {
            // The worker is stopping: the task ends before it began.
            rt.ctx.cancel(new Cause.ShuttingDown());
            Thread t = new Thread(() -> execute(rt), "jobwheel-task-" + rt.task.taskId);
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * Sets a held task's timer: at its startAt it starts, or at its deadline
     * if that comes first it times out unstarted. A timer per task, not a
     * polling loop: the timer thread sleeps until the earliest one.
     */
    private void armStart(TaskRun rt) {
        Instant at = rt.task.startAt;
        if (rt.task.deadline != null && rt.task.deadline.isBefore(at)) {
            at = rt.task.deadline;
        }
        long delay = Math.max(Duration.between(Instant.now(), at).toNanos(), 0);
        ScheduledFuture<?> f;
        try {
            f = timers.schedule(() -> startHeld(rt), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return; // the worker is past stopping: its shutdown handed the task back
        }
        lock.lock();
        try {
            if (rt.held) {
                rt.startTimer = f;
                return;
            }
        } finally {
            lock.unlock();
        }
        f.cancel(false); // stopped or handed back meanwhile
    }

    /** A held task's timer: start it, or fail it if its deadline has passed. */
    private void startHeld(TaskRun rt) {
        Task t = rt.task;
        Instant now = Instant.now();
        if (t.deadline != null && !now.isBefore(t.deadline)) {
            endHeld(List.of(rt), Protocol.FAILED, "timed out before it started: its deadline " + t.deadline
                    + " came before its start time " + t.startAt, Protocol.REASON_TIMEOUT);
            return;
        }
        if (now.isBefore(t.startAt)) {
            // The timer counts on the monotonic clock, startAt is on the
            // wall clock: when they disagree, wait the rest rather than
            // start early.
            armStart(rt);
            return;
        }
        lock.lock();
        try {
            if (!rt.held) {
                return; // stopped, handed back or timed out just now
            }
            rt.held = false;
            rt.startTimer = null;
        } finally {
            lock.unlock();
        }
        launch(rt);
    }

    /** Takes the held tasks among list out of holding (under the lock): theirs to end; the others started or ended. */
    private List<TaskRun> unholdLocked(List<TaskRun> list) {
        List<TaskRun> out = new ArrayList<>();
        for (TaskRun rt : list) {
            if (rt.held) {
                rt.held = false;
                if (rt.startTimer != null) {
                    rt.startTimer.cancel(false);
                    rt.startTimer = null;
                }
                out.add(rt);
            }
        }
        return out;
    }

    /**
     * Ends tasks taken out of holding without running them: no RUNNING,
     * one final report, the slot freed. Tasks that are still held are
     * taken out of holding first; others are left alone. Reported on a
     * thread of its own: queueing may wait for room in the report queue,
     * which the caller (the connection's reader, the timer) must not.
     */
    private void endHeld(List<TaskRun> list, String status, String result, String reason) {
        List<TaskRun> mine;
        lock.lock();
        try {
            mine = unholdLocked(list);
        } finally {
            lock.unlock();
        }
        endUnheld(mine, status, result, reason);
    }

    private void endUnheld(List<TaskRun> mine, String status, String result, String reason) {
        if (mine.isEmpty()) {
            return;
        }
        Runnable end = () -> {
            for (TaskRun rt : mine) {
                finishUnstarted(rt, status, result, reason);
            }
        };
        try {
            slotPool.execute(end);
        } catch (RejectedExecutionException e) {
            Thread t = new Thread(end, "jobwheel-unstarted-" + mine.get(0).task.taskId);
            t.setDaemon(true);
            t.start();
        }
    }

    /** The final report of a task that never started; as finish, without a processor. */
    private void finishUnstarted(TaskRun rt, String status, String result, String reason) {
        rt.finalized.set(true);
        lock.lock();
        try {
            busy--;
        } finally {
            lock.unlock();
        }
        ObjectNode body = status(rt.task, status, Instant.now());
        body.put("result", Protocol.truncate(result, Protocol.MAX_RESULT_BYTES));
        if (!reason.isEmpty()) {
            body.put("reason", reason);
        }
        report(body);
        lock.lock();
        try {
            // As in finish: listed as running until the final report is queued.
            rt.finalSent = true;
            unreported--;
            reported.signalAll();
            running.remove(rt.task.taskId);
        } finally {
            lock.unlock();
        }
        log.log(INFO, () -> "task " + rt.task.taskId + " (instance " + rt.task.instanceId + ", " + rt.task.kind + ") ended "
                + status + (reason.isEmpty() ? "" : " (" + reason + ")") + " without running: " + Protocol.truncate(result, 200));
    }

    /**
     * Cancels the tasks a stop frame names: the task ids given (with
     * instanceId 0: whatever their instance), or with none every task of the
     * instance (§10). Named tasks held for their start time end without
     * running: STOPPED, or with unstarted (a take-back) FAILED HANDED_BACK
     * so the server dispatches them again; a take-back leaves the named
     * tasks that have started alone.
     */
    void stopTasks(ObjectNode s) {
        long inst = Protocol.integer(s, "instanceId");
        Set<Long> ids = new TreeSet<>();
        s.path("taskIds").forEach(i -> ids.add(i.asLong()));
        String reason = Protocol.text(s, "reason");
        boolean unstarted = s.path("unstarted").asBoolean(false);
        List<TaskRun> matched = new ArrayList<>();
        List<TaskRun> held;
        lock.lock();
        try {
            for (TaskRun rt : running.values()) {
                boolean named = !ids.isEmpty() && ids.contains(rt.task.taskId) && (inst == 0 || rt.task.instanceId == inst);
                boolean whole = ids.isEmpty() && inst != 0 && rt.task.instanceId == inst;
                if (named || whole) {
                    matched.add(rt);
                }
            }
            held = unholdLocked(matched);
            matched.removeAll(held);
        } finally {
            lock.unlock();
        }
        // An empty reason reads as the Go SDK's.
        if (unstarted) {
            endUnheld(held, Protocol.FAILED, "handed back before it started: " + (reason.isEmpty() ? "taken back by the server" : reason),
                    Protocol.REASON_HANDED_BACK);
            return; // a take-back never stops a task that has started
        }
        endUnheld(held, Protocol.STOPPED, "stopped before it started: " + (reason.isEmpty() ? "stopped by the server" : reason), "");
        for (TaskRun rt : matched) {
            rt.ctx.cancel(new Cause.Stopped(reason));
        }
    }

    private void report(ObjectNode body) {
        try {
            outbox.addReport(body);
        } catch (Outbox.Closed e) {
            log.log(ERROR, () -> "task report lost: the worker has stopped (task " + Protocol.integer(body, "taskId") + ", "
                    + Protocol.text(body, "status") + ")");
        }
    }

    void taskLine(long instanceId, long taskId, TaskLogger.Level level, String text) {
        if (level.ordinal() >= cfg.taskLogLevel.ordinal()) {
            outbox.addLog(new Outbox.LogLine(instanceId, taskId, Protocol.formatTime(Instant.now()), level.name(),
                    Protocol.truncate(text, Protocol.MAX_LOG_LINE_BYTES)));
        }
        System.Logger.Level l = level == TaskLogger.Level.DEBUG ? DEBUG : level == TaskLogger.Level.INFO ? INFO
                : level == TaskLogger.Level.WARN ? WARNING : ERROR;
        if (TASK_LOG.isLoggable(l)) {
            TASK_LOG.log(l, "[instance " + instanceId + " task " + taskId + "] " + text);
        }
    }

    /** The outcome of a processor call. */
    static final class Outcome {
        ProcessResult result;
        Throwable error;
        boolean returned;
    }

    /** Runs a task on its slot thread: RUNNING, the processor, the final report. */
    private void execute(TaskRun rt) {
        TaskContext ctx = rt.ctx;
        Instant at = Instant.now();
        if (rt.task.startAt != null && at.isBefore(rt.task.startAt)) {
            at = rt.task.startAt; // only if the wall clock stepped back since its timer checked: never report a start before startAt
        }
        rt.startNanos = System.nanoTime();
        ctx.startedAt(at);
        report(status(rt.task, Protocol.RUNNING, at));
        if (rt.task.deadline != null) {
            long left = Math.max(Duration.between(Instant.now(), rt.task.deadline).toNanos(), 0);
            try {
                rt.deadlineTimer = timers.schedule(() -> ctx.cancel(new Cause.TimedOut(Duration.ofNanos(System.nanoTime() - rt.startNanos))),
                        left, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                // stopping: the shutdown cancels it
            }
        }
        ctx.whenCancelled(() -> onCancelled(rt));
        Outcome out = new Outcome();
        rt.enter();
        TaskContext.bind(ctx);
        try {
            out.result = call(rt.reg.processor, ctx);
            out.returned = true;
        } catch (Throwable e) {
            out.error = e;
        } finally {
            TaskContext.bind(null);
            rt.leave();
        }
        if (!rt.finalized.compareAndSet(false, true)) {
            // Its end was reported when it did not return in time: only the slot is left.
            lock.lock();
            try {
                running.remove(rt.task.taskId);
                busy--;
            } finally {
                lock.unlock();
            }
            log.log(INFO, () -> "task " + rt.task.taskId + ": the processor returned at last; its slot is free");
            return;
        }
        finish(rt, out, false);
    }

    /** A stop, a timeout or the shutdown: interrupt the processor, and report anyway if it does not return. */
    private void onCancelled(TaskRun rt) {
        rt.interrupt();
        try {
            timers.schedule(() -> {
                if (rt.finalized.compareAndSet(false, true)) {
                    // Reporting may wait for room in the report queue: not on the timer's thread.
                    Thread t = new Thread(() -> finish(rt, new Outcome(), true), "jobwheel-abandon-" + rt.task.taskId);
                    t.setDaemon(true);
                    t.start();
                }
            }, cfg.abandonAfter.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the worker is past stopping: nothing more is reported
        }
    }

    private ObjectNode status(Task t, String status) {
        return status(t, status, Instant.now());
    }

    private ObjectNode status(Task t, String status, Instant at) {
        ObjectNode b = Protocol.JSON.createObjectNode();
        b.put("taskId", t.taskId);
        b.put("instanceId", t.instanceId);
        b.put("status", status);
        b.put("at", Protocol.formatTime(at));
        return b;
    }

    private void finish(TaskRun rt, Outcome out, boolean abandoned) {
        TaskContext ctx = rt.ctx;
        if (rt.deadlineTimer != null) {
            rt.deadlineTimer.cancel(false);
        }
        if (out.error != null && !ctx.isCancelled()) {
            ctx.getLogger().error(LogFormat.stackTrace(out.error));
        }
        String[] c = classify(ctx, out, abandoned);
        String status = c[0];
        String result = c[1];
        String reason = c[2];
        ResultsException re = ctx.resultsError();
        if (re != null && Protocol.SUCCEEDED.equals(status)) {
            // The processor caught the error and returned all the same: its
            // result stands on part of the results, so it must not count.
            status = Protocol.FAILED;
            result = re.getMessage() + " (the processor went on without them)";
        }
        Results results = ctx.results();
        if (results.isPaged() && results.getPagesRead() > 0) {
            log.log(INFO, () -> "task " + rt.task.taskId + " (instance " + rt.task.instanceId + ", " + rt.task.kind
                    + ") read its results from the server in " + results.getPagesRead() + " pages");
        }
        ObjectNode additions = null;
        try {
            additions = ctx.getWorkflowContext().additions();
        } catch (IllegalStateException e) {
            if (Protocol.SUCCEEDED.equals(status)) {
                status = Protocol.FAILED;
                result = e.getMessage();
            }
        }
        if (!abandoned) {
            lock.lock();
            try {
                // The slot is free from here: the server frees it when it
                // reads the report, and may send the next task before this
                // thread reaches its end.
                busy--;
            } finally {
                lock.unlock();
            }
        }
        ObjectNode body = status(rt.task, status);
        body.put("result", Protocol.truncate(result, Protocol.MAX_RESULT_BYTES));
        if (!reason.isEmpty()) {
            body.put("reason", reason);
        }
        if (additions != null) {
            body.set("workflowContext", additions);
        }
        report(body);
        lock.lock();
        try {
            // Only now that the final report is queued (and so among the
            // unacked finals) does the task leave the heartbeat's running
            // list; set before, a heartbeat in between would list it nowhere
            // and the server would fail it as lost.
            rt.finalSent = true;
            unreported--;
            reported.signalAll();
            if (!abandoned) {
                running.remove(rt.task.taskId);
            }
        } finally {
            lock.unlock();
        }
        String st = status;
        String res = result;
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - rt.startNanos);
        System.Logger.Level level = Protocol.KIND_MAP.equals(rt.task.kind) && Protocol.SUCCEEDED.equals(status) ? DEBUG : INFO;
        log.log(level, () -> "task " + rt.task.taskId + " (instance " + rt.task.instanceId + ", " + rt.task.kind + ") ended "
                + st + " after " + String.format(java.util.Locale.ROOT, "%.3fs", ms / 1000.0) + ": " + Protocol.truncate(res, 200));
        if (abandoned) {
            log.log(WARNING, () -> "task " + rt.task.taskId + ": the processor did not return within " + Cause.seconds(cfg.abandonAfter)
                    + " of being cancelled; its slot stays taken until it does");
        }
    }

    private static ProcessResult call(BasicProcessor p, TaskContext ctx) throws Exception {
        switch (ctx.getKind()) {
            case Protocol.KIND_PRE:
                if (p instanceof BroadcastProcessor) {
                    return ((BroadcastProcessor) p).preProcess(ctx);
                }
                return new ProcessResult(true, "no pre-process");
            case Protocol.KIND_POST: {
                if (p instanceof BroadcastProcessor) {
                    return ((BroadcastProcessor) p).postProcess(ctx, ctx.results());
                }
                int ok = 0;
                int n = 0;
                for (TaskResult r : ctx.results()) { // one pass: paged results are read once
                    n++;
                    if (r.isSuccess()) {
                        ok++;
                    }
                }
                return new ProcessResult(true, "no post-process; " + ok + " of " + n + " tasks succeeded");
            }
            case Protocol.KIND_REDUCE:
                if (p instanceof MapReduceProcessor) {
                    return ((MapReduceProcessor) p).reduce(ctx, ctx.results());
                }
                throw new IllegalStateException("processor " + ctx.getProcessor() + " cannot reduce: it is not a MapReduceProcessor, which a MAP_REDUCE job needs");
            default:
                return p.process(ctx);
        }
    }

    private static String errorText(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /** The reason a task did not succeed, then whatever its processor returned all the same. */
    private static String withOutput(String reason, Outcome out) {
        String msg = out.result == null ? "" : out.result.getMsg();
        return msg.isBlank() ? reason : reason + "\n" + msg;
    }

    /**
     * A final status, result and reason. A stop or a timeout decides over
     * what the processor returned: the server has already moved on.
     */
    static String[] classify(TaskContext ctx, Outcome out, boolean abandoned) {
        Cause cause = ctx.cause();
        if (cause instanceof Cause.Stopped) {
            return new String[]{Protocol.STOPPED, withOutput(cause.describe(), out), ""};
        }
        if (cause instanceof Cause.TimedOut) {
            return new String[]{Protocol.FAILED, withOutput(cause.describe(), out), Protocol.REASON_TIMEOUT};
        }
        if (cause instanceof Cause.ShuttingDown) {
            if (abandoned) {
                return new String[]{Protocol.FAILED, "worker shutting down; the task did not return", ""};
            }
            if (out.error != null) {
                return new String[]{Protocol.FAILED, "worker shutting down: " + errorText(out.error), ""};
            }
        }
        if (out.error != null) {
            return new String[]{Protocol.FAILED, errorText(out.error), ""};
        }
        if (out.result == null) {
            return new String[]{Protocol.FAILED, "the processor returned no ProcessResult (null)", ""};
        }
        return new String[]{out.result.isSuccess() ? Protocol.SUCCEEDED : Protocol.FAILED, out.result.getMsg(), ""};
    }

    // For tests.

    Map<Long, TaskRun> runningForTest() {
        lock.lock();
        try {
            return Collections.unmodifiableMap(new LinkedHashMap<>(running));
        } finally {
            lock.unlock();
        }
    }

    /** Starts the executors run() starts, without connecting: unit tests drive accept and the outbox directly. */
    void startForTest() {
        lock.lock();
        try {
            started = true;
        } finally {
            lock.unlock();
        }
        slotPool = Slots.executor(cfg.slots, cfg.virtualThreads, new StringBuilder());
        timers = new ScheduledThreadPoolExecutor(1);
        timers.setRemoveOnCancelPolicy(true);
    }

    /** What run() does after stop(), without a connection. */
    void stopForTest() {
        shutdown(true, false);
        outbox.close();
        slotPool.shutdownNow();
        timers.shutdownNow();
        destroyHandlers();
    }
}
