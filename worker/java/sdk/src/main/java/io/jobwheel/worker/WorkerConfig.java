package io.jobwheel.worker;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A worker's settings. Build them with {@link #builder()}, or start from the
 * environment with {@link #fromEnv()}, which reads the agent's variables:
 *
 * <pre>{@code
 * WorkerConfig cfg = WorkerConfig.fromEnv()   // JOBWHEEL_SERVERS, JOBWHEEL_APP, JOBWHEEL_APP_SECRET…
 *     .name("billing")
 *     .build();                               // ConfigException naming the setting (or variable) when one is wrong
 * }</pre>
 */
public final class WorkerConfig {
    /** At most this many jobs in one declaration (the hello's limit). */
    public static final int MAX_DECLARED_JOBS = 1000;

    final String app;
    final String secret;
    final List<String> servers;
    final List<String> tags;
    final int slots;
    final String name;
    final String host;
    final String version;
    final Path workDir;
    final TaskLogger.Level taskLogLevel;
    final int maxBufferedLogLines;
    final int maxBufferedReports;
    final Duration flushInterval;
    final Duration mapTimeout;
    final Duration shutdownTimeout;
    final Duration abandonAfter;
    final Duration discoverTimeout;
    final String jobSet;
    final List<JobDeclaration> jobs;
    final boolean jobsDryRun;
    final Boolean virtualThreads;
    final System.Logger logger;
    // Shorter in tests.
    final Duration backoffMin;
    final Duration backoffMax;

    private WorkerConfig(Builder b) {
        app = b.app;
        secret = b.secret;
        servers = List.copyOf(b.servers);
        tags = List.copyOf(b.tags);
        slots = b.slots;
        name = b.name;
        host = b.host;
        version = b.version;
        workDir = b.workDir;
        taskLogLevel = b.taskLogLevel;
        maxBufferedLogLines = b.maxBufferedLogLines;
        maxBufferedReports = b.maxBufferedReports;
        flushInterval = b.flushInterval;
        mapTimeout = b.mapTimeout;
        shutdownTimeout = b.shutdownTimeout;
        abandonAfter = b.abandonAfter;
        discoverTimeout = b.discoverTimeout;
        jobSet = b.jobSet;
        jobs = List.copyOf(b.jobs);
        jobsDryRun = b.jobsDryRun;
        virtualThreads = b.virtualThreads;
        logger = b.logger;
        backoffMin = b.backoffMin;
        backoffMax = b.backoffMax;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder filled from the environment: JOBWHEEL_SERVERS
     * (comma-separated; default http://localhost:7700), JOBWHEEL_APP,
     * JOBWHEEL_APP_SECRET, JOBWHEEL_WORKER_TAGS, JOBWHEEL_WORKER_SLOTS,
     * JOBWHEEL_WORKER_NAME. Settings given on the builder afterwards win; a
     * bad value from the environment makes build() throw ConfigException
     * naming the variable.
     */
    public static Builder fromEnv() {
        return fromEnv(System.getenv());
    }

    /** fromEnv() reading env instead of the process's environment. */
    public static Builder fromEnv(Map<String, String> env) {
        Builder b = new Builder();
        b.app = env.getOrDefault("JOBWHEEL_APP", "");
        b.from.put("app", "JOBWHEEL_APP");
        b.secret = env.getOrDefault("JOBWHEEL_APP_SECRET", "");
        b.from.put("secret", "JOBWHEEL_APP_SECRET");
        String servers = env.getOrDefault("JOBWHEEL_SERVERS", "");
        b.servers = list(servers.isBlank() ? "http://localhost:7700" : servers);
        b.from.put("servers", "JOBWHEEL_SERVERS");
        b.tags = list(env.getOrDefault("JOBWHEEL_WORKER_TAGS", ""));
        b.from.put("tags", "JOBWHEEL_WORKER_TAGS");
        String name = env.getOrDefault("JOBWHEEL_WORKER_NAME", "");
        if (!name.isBlank()) {
            b.name = name.strip();
            b.from.put("name", "JOBWHEEL_WORKER_NAME");
        }
        String slots = env.getOrDefault("JOBWHEEL_WORKER_SLOTS", "");
        if (!slots.isBlank()) {
            try {
                b.slots = Integer.parseInt(slots.strip());
            } catch (NumberFormatException e) {
                b.envError = new ConfigException("JOBWHEEL_WORKER_SLOTS", "\"" + slots + "\" is not a number");
            }
            b.from.put("slots", "JOBWHEEL_WORKER_SLOTS");
        }
        return b;
    }

    static List<String> list(String s) {
        List<String> out = new ArrayList<>();
        for (String v : s.split(",")) {
            if (!v.isBlank()) {
                out.add(v.strip());
            }
        }
        return out;
    }

    /** Builds a WorkerConfig; build() checks every setting. */
    public static final class Builder {
        private String app = "";
        private String secret = "";
        private List<String> servers = new ArrayList<>();
        private List<String> tags = new ArrayList<>();
        private int slots = Math.min(4 * Runtime.getRuntime().availableProcessors(), 10_000);
        private String name;
        private String host;
        private String version = Worker.SDK_VERSION;
        private Path workDir = Path.of(System.getProperty("java.io.tmpdir"));
        private TaskLogger.Level taskLogLevel = TaskLogger.Level.DEBUG;
        private int maxBufferedLogLines = 20_000;
        private int maxBufferedReports = 10_000;
        private Duration flushInterval = Duration.ofMillis(50);
        private Duration mapTimeout = Duration.ofSeconds(30);
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        private Duration abandonAfter = Duration.ofSeconds(5);
        private Duration discoverTimeout = Duration.ofSeconds(10);
        private String jobSet = "";
        private List<JobDeclaration> jobs = new ArrayList<>();
        private boolean jobsDryRun;
        private Boolean virtualThreads;
        private System.Logger logger;
        private Duration backoffMin = Duration.ofMillis(200);
        private Duration backoffMax = Duration.ofSeconds(3);
        // Settings read from the environment: setting → variable, for errors.
        private final Map<String, String> from = new HashMap<>();
        private ConfigException envError;

        private Builder() {
        }

        private Builder set(String field) {
            from.remove(field);
            if (envError != null && field.equals("slots")) {
                envError = null;
            }
            return this;
        }

        /** The name of the app this worker serves. */
        public Builder app(String v) {
            app = v;
            return set("app");
        }

        /** The app's secret, shown when the app was created. */
        public Builder secret(String v) {
            secret = v;
            return set("secret");
        }

        /** Server base URLs (http:// or https://); the worker learns the others from them. */
        public Builder servers(List<String> v) {
            servers = new ArrayList<>(v);
            return set("servers");
        }

        public Builder servers(String... v) {
            return servers(Arrays.asList(v));
        }

        /** Tags jobs can require (at most 64). */
        public Builder tags(List<String> v) {
            tags = new ArrayList<>(v);
            return set("tags");
        }

        public Builder tags(String... v) {
            return tags(Arrays.asList(v));
        }

        /** Tasks run at once (1–10,000; default 4 × CPUs). */
        public Builder slots(int v) {
            slots = v;
            return set("slots");
        }

        /**
         * The worker's name (≤ 100 characters; default the host name). Its id
         * is the name plus a random suffix, new in each process.
         */
        public Builder name(String v) {
            name = v;
            return set("name");
        }

        /** The address shown in the console (default the host name). */
        public Builder host(String v) {
            host = v;
            return this;
        }

        /** Stated in hello (default jobwheel-java/0.1). */
        public Builder version(String v) {
            version = v;
            return this;
        }

        /** Its free space is reported (default java.io.tmpdir). */
        public Builder workDir(Path v) {
            workDir = v;
            return this;
        }

        /** The lowest level of task lines shipped (default DEBUG: all). */
        public Builder taskLogLevel(TaskLogger.Level v) {
            taskLogLevel = v;
            return this;
        }

        /**
         * Lines queued (e.g. while disconnected) before the oldest are
         * dropped; the server is told how many (default 20,000).
         */
        public Builder maxBufferedLogLines(int v) {
            maxBufferedLogLines = v;
            return this;
        }

        /** Reports queued before finishing tasks wait for room (default 10,000; reports are never dropped). */
        public Builder maxBufferedReports(int v) {
            maxBufferedReports = v;
            return this;
        }

        /** How often queued reports and lines are sent (default 50 ms). */
        public Builder flushInterval(Duration v) {
            flushInterval = v;
            return this;
        }

        /**
         * How long map waits while the server stores none of the worker's
         * subtasks (while it stores some, however slowly, map waits on), and
         * a POST or REDUCE task for a page of results (default 30 s).
         */
        public Builder mapTimeout(Duration v) {
            mapTimeout = v;
            return this;
        }

        /** How long stopping waits for final reports and acks (default 10 s). */
        public Builder shutdownTimeout(Duration v) {
            shutdownTimeout = v;
            return this;
        }

        /**
         * How long a cancelled processor may take to return before its end
         * is reported anyway (default 5 s; its slot stays taken until it
         * returns).
         */
        public Builder abandonAfter(Duration v) {
            abandonAfter = v;
            return this;
        }

        /** Each discovery request's timeout (default 10 s). */
        public Builder discoverTimeout(Duration v) {
            discoverTimeout = v;
            return this;
        }

        /**
         * The name of the set of jobs this worker declares in code (e.g. the
         * service's name): on every connect the server creates or updates
         * them, marks them managed by the set, and disables (never deletes)
         * the set's jobs no longer declared.
         */
        public Builder jobSet(String v) {
            jobSet = v;
            return this;
        }

        /** The set's jobs (at most 1,000). */
        public Builder jobs(List<JobDeclaration> v) {
            jobs = new ArrayList<>(v);
            return this;
        }

        public Builder jobs(JobDeclaration... v) {
            return jobs(Arrays.asList(v));
        }

        /** Only have the server say what the declaration would change. */
        public Builder jobsDryRun(boolean v) {
            jobsDryRun = v;
            return this;
        }

        /** The set, jobs and dry-run flag of a JOBWHEEL_JOBS_FILE. */
        public Builder declare(JobsFile f) {
            jobSet = f.getSet();
            jobs = new ArrayList<>(f.getJobs());
            jobsDryRun = f.isDryRun();
            return this;
        }

        /**
         * Run processors on virtual threads (true: required, Java 21+),
         * on a bounded pool of platform threads (false), or virtual threads
         * where the JVM has them (null, the default).
         */
        public Builder virtualThreads(Boolean v) {
            virtualThreads = v;
            return this;
        }

        /** The worker's own log (default System.getLogger("io.jobwheel.worker")). */
        public Builder logger(System.Logger v) {
            logger = v;
            return this;
        }

        Builder backoff(Duration min, Duration max) {
            backoffMin = min;
            backoffMax = max;
            return this;
        }

        private ConfigException bad(String field, String reason) {
            String base = field.contains("[") ? field.substring(0, field.indexOf('[')) : field;
            return new ConfigException(from.getOrDefault(base, field), reason);
        }

        /** Checks every setting; throws ConfigException naming the first bad one. */
        public WorkerConfig build() {
            if (envError != null) {
                throw envError;
            }
            String hostname = hostname();
            if (name == null || name.isBlank()) {
                name = hostname;
            }
            if (host == null || host.isBlank()) {
                host = hostname;
            }
            if (app == null || app.isBlank()) {
                throw bad("app", "is empty; set the name of the app this worker serves");
            }
            if (secret == null || secret.isEmpty()) {
                throw bad("secret", "is empty; set the app secret (JOBWHEEL_APP_SECRET), shown when the app was created");
            }
            if (servers.isEmpty()) {
                throw bad("servers", "is empty; give at least one server URL such as http://localhost:7700");
            }
            for (int i = 0; i < servers.size(); i++) {
                String s = servers.get(i);
                if (!httpURL(s)) {
                    throw bad("servers[" + i + "]", "\"" + s + "\" is not an http:// or https:// URL such as http://localhost:7700");
                }
            }
            if (name.length() > 100) {
                throw bad("name", "is " + name.length() + " characters; at most 100");
            }
            if (slots < 1 || slots > 10_000) {
                throw bad("slots", slots + " is not between 1 and 10000");
            }
            if (tags.size() > 64) {
                throw bad("tags", tags.size() + " tags; at most 64");
            }
            for (int i = 0; i < tags.size(); i++) {
                if (tags.get(i) == null || tags.get(i).isBlank()) {
                    throw bad("tags[" + i + "]", "is empty");
                }
            }
            if (maxBufferedLogLines < 1) {
                throw bad("maxBufferedLogLines", maxBufferedLogLines + " is not a positive number");
            }
            if (maxBufferedReports < 1) {
                throw bad("maxBufferedReports", maxBufferedReports + " is not a positive number");
            }
            positive("flushInterval", flushInterval);
            positive("mapTimeout", mapTimeout);
            positive("shutdownTimeout", shutdownTimeout);
            positive("abandonAfter", abandonAfter);
            positive("discoverTimeout", discoverTimeout);
            if (workDir == null || !Files.isDirectory(workDir)) {
                throw bad("workDir", "\"" + workDir + "\" is not a directory");
            }
            if (taskLogLevel == null) {
                throw bad("taskLogLevel", "is null");
            }
            // As the Go SDK's Config.Validate; the server checks the rest
            // (names, schedules, limits) and refuses the hello with BAD_FRAME.
            if (jobSet == null) {
                jobSet = "";
            }
            if (Protocol.utf8Length(jobSet) > 128) {
                throw bad("jobSet", "is " + Protocol.utf8Length(jobSet) + " bytes; at most 128");
            }
            if (jobSet.isEmpty() && (!jobs.isEmpty() || jobsDryRun)) {
                throw bad("jobSet", "is empty; name the set the declared jobs belong to (e.g. the service's name)");
            }
            if (jobs.size() > MAX_DECLARED_JOBS) {
                throw bad("jobs", jobs.size() + " jobs; at most " + MAX_DECLARED_JOBS);
            }
            for (int i = 0; i < jobs.size(); i++) {
                if (jobs.get(i) == null) {
                    throw bad("jobs[" + i + "]", "is null");
                }
            }
            if (Boolean.TRUE.equals(virtualThreads) && !Slots.virtualThreadsAvailable()) {
                throw bad("virtualThreads", "this JVM (Java " + Runtime.version().feature()
                        + ") has no virtual threads; they need Java 21 or newer");
            }
            return new WorkerConfig(this);
        }

        private void positive(String field, Duration d) {
            if (d == null || d.isZero() || d.isNegative()) {
                throw bad(field, d + " is not a positive duration");
            }
        }

        private static boolean httpURL(String s) {
            if (s == null) {
                return false;
            }
            try {
                URI u = new URI(s);
                return ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null;
            } catch (URISyntaxException e) {
                return false;
            }
        }

        /**
         * The host's name without a DNS lookup where it can (getLocalHost
         * resolves it, which can hang on a machine without DNS).
         */
        private static String hostname() {
            String h = System.getenv("HOSTNAME");
            if (h != null && !h.isBlank()) {
                return h.strip();
            }
            try {
                h = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
                if (!h.isEmpty()) {
                    return h;
                }
            } catch (java.io.IOException | RuntimeException e) {
                // not Linux: ask the resolver
            }
            try {
                h = InetAddress.getLocalHost().getHostName();
                return h == null || h.isBlank() ? "worker" : h;
            } catch (UnknownHostException e) {
                return "worker";
            }
        }
    }
}
