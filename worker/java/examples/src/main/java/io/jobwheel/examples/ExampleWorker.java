package io.jobwheel.examples;

import io.jobwheel.worker.AuthException;
import io.jobwheel.worker.ConfigException;
import io.jobwheel.worker.JobDeclaration;
import io.jobwheel.worker.JobsFile;
import io.jobwheel.worker.Worker;
import io.jobwheel.worker.WorkerConfig;

import java.nio.file.Path;

/**
 * An example jobwheel worker in Java, with a processor of each PowerJob kind
 * and xxl-job-style handlers:
 *
 * <pre>
 * JOBWHEEL_SERVERS=http://localhost:7700 JOBWHEEL_APP=demo JOBWHEEL_APP_SECRET='jwa_…' \
 *   java -jar worker/java/examples/target/jobwheel-worker-examples.jar
 * </pre>
 *
 * It declares its jobs in code (set "java-examples", all run on demand: press
 * Run in the console), or, given JOBWHEEL_JOBS_FILE, the file's instead.
 * SIGINT or SIGTERM stops it gracefully (exit status 0); a refused secret
 * exits 1, a bad setting 2. JOBWHEEL_LOG_LEVEL (INFO; FINE, WARNING…) sets
 * how much it prints.
 */
public final class ExampleWorker {
    private ExampleWorker() {
    }

    public static void main(String[] args) {
        System.exit(run());
    }

    static int run() {
        String level = System.getenv("JOBWHEEL_LOG_LEVEL");
        Logging.setUp(level == null || level.isBlank() ? "INFO" : "debug".equalsIgnoreCase(level) ? "FINE" : level);
        Worker w;
        try {
            WorkerConfig.Builder b = WorkerConfig.fromEnv();
            String file = System.getenv("JOBWHEEL_JOBS_FILE");
            if (file != null && !file.isBlank()) {
                b.declare(JobsFile.read(Path.of(file)));
            } else {
                b.jobSet("java-examples").jobs(
                        JobDeclaration.builder("java-hello", "API", HelloProcessor.class.getName())
                                .description("a PowerJob-style BasicProcessor").params("jobwheel").build(),
                        JobDeclaration.builder("java-broadcast", "API", ShardedBroadcast.class.getName())
                                .description("a PowerJob-style BroadcastProcessor on every worker").executionMode("BROADCAST").build(),
                        JobDeclaration.builder("java-sum-of-squares", "API", SumOfSquares.class.getName())
                                .description("a PowerJob-style MapReduceProcessor").executionMode("MAP_REDUCE").params("1000")
                                .taskConcurrency(8).build(),
                        JobDeclaration.builder("xxl-demo", "API", "demoJobHandler")
                                .description("an xxl-job @XxlJob handler").build(),
                        JobDeclaration.builder("xxl-lifecycle", "API", "demoJobHandler2")
                                .description("an xxl-job @XxlJob handler with init and destroy").build(),
                        JobDeclaration.builder("xxl-sharding", "API", "shardingJobHandler")
                                .description("an xxl-job sharding handler (SHARDING_BROADCAST)").executionMode("BROADCAST").build());
            }
            w = new Worker(b.build());
        } catch (ConfigException e) {
            System.err.println("ExampleWorker: " + e.getMessage());
            return 2;
        }
        // PowerJob's way: processors named by their class, as its BUILT_IN jobs name them.
        w.register(new HelloProcessor());
        w.register(new ShardedBroadcast());
        w.register(new SumOfSquares());
        // xxl-job's way: @XxlJob methods, named by the annotation.
        w.registerHandlers(new XxlStyleJobs());
        Signals.stopOn(w, "TERM", "INT");
        try {
            w.run();
        } catch (AuthException e) {
            System.err.println("ExampleWorker: " + e.getMessage() + " (set JOBWHEEL_APP and JOBWHEEL_APP_SECRET)");
            return 1;
        }
        return 0;
    }
}
