package io.jobwheel.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jobwheel.worker.AuthException;
import io.jobwheel.worker.ConfigException;
import io.jobwheel.worker.JobsFile;
import io.jobwheel.worker.MapReduceProcessor;
import io.jobwheel.worker.ProcessResult;
import io.jobwheel.worker.TaskContext;
import io.jobwheel.worker.TaskResult;
import io.jobwheel.worker.Worker;
import io.jobwheel.worker.WorkerConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Java SDK's worker for the conformance kit (worker/conformance): it
 * registers the kit's processors (worker/conformance/README.md) and reads
 * its settings from the environment the kit sets.
 *
 * <pre>
 * go run ./worker/conformance -- java -cp worker/java/examples/target/jobwheel-worker-examples.jar io.jobwheel.examples.ConformanceWorker
 * </pre>
 *
 * It exits 0 after SIGTERM or SIGINT, 1 when the server refuses the secret,
 * 2 on a configuration error.
 */
public final class ConformanceWorker {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ConformanceWorker() {
    }

    public static void main(String[] args) {
        System.exit(run());
    }

    static int run() {
        Logging.setUp("FINE");
        // Task lines go to the kit; a copy of each (1,500 of 5 KB in one check) would only slow it.
        Logging.level("io.jobwheel.worker.task", java.util.logging.Level.WARNING);
        Worker w;
        try {
            WorkerConfig.Builder b = WorkerConfig.fromEnv().name("conformance-java");
            String jobs = System.getenv("JOBWHEEL_JOBS_FILE");
            if (jobs != null && !jobs.isEmpty()) {
                b.declare(JobsFile.read(Path.of(jobs)));
            }
            w = new Worker(b.build());
        } catch (ConfigException e) {
            System.err.println("ConformanceWorker: " + e.getMessage());
            return 2;
        }
        w.register("conformance.succeed", ConformanceWorker::succeed);
        w.register("conformance.fail", ctx -> {
            ctx.getLogger().info("failing");
            throw new IllegalStateException("conformance failure");
        });
        w.register("conformance.block", ctx -> {
            ctx.getLogger().info("blocking");
            ctx.awaitCancelled();
            throw new IllegalStateException("cancelled");
        });
        w.register("conformance.map", new Squares());
        w.register("conformance.workflow", ConformanceWorker::workflow);
        Signals.stopOn(w, "TERM", "INT");
        try {
            w.run();
        } catch (AuthException e) {
            System.err.println("ConformanceWorker: " + e.getMessage());
            return 1;
        }
        return 0;
    }

    /** Logs {"lines": N} lines "line i", each padded to {"size": S} bytes. */
    static ProcessResult succeed(TaskContext ctx) throws Exception {
        int lines = 3;
        int size = 0;
        if (!ctx.getJobParams().isEmpty()) {
            JsonNode p = JSON.readTree(ctx.getJobParams());
            lines = p.path("lines").asInt(3);
            size = p.path("size").asInt(0);
        }
        for (int i = 1; i <= lines; i++) {
            String text = "line " + i;
            if (text.length() < size) {
                text += " " + "x".repeat(size - text.length() - 1);
            }
            ctx.getLogger().info(text);
        }
        return new ProcessResult(true, "wrote " + lines + " lines; params=" + ctx.getInstanceParams());
    }

    /** Adds "doubled" (the context's n × 2) and "echo" (upstream node "up"'s result). */
    static ProcessResult workflow(TaskContext ctx) {
        Map<String, Object> values = ctx.getWorkflowContext().getValues();
        long n = values.get("n") instanceof Number ? ((Number) values.get("n")).longValue() : 0;
        ctx.getWorkflowContext().appendData2WfContext("doubled", n * 2);
        ctx.getWorkflowContext().appendData2WfContext("echo", ctx.getUpstream().get("up"));
        return new ProcessResult(true, "node " + ctx.getWorkflowNode() + " of run " + ctx.getWorkflowRunId());
    }

    /** The ROOT maps 1..k then k+1..2k as subtasks "square"; MAP squares; REDUCE sums the squares. */
    static final class Squares implements MapReduceProcessor {
        @Override
        public ProcessResult process(TaskContext ctx) throws Exception {
            if (isRootTask()) {
                int k = Integer.parseInt(ctx.getJobParams().strip());
                for (int start = 1; start <= k + 1; start += k) {
                    List<Integer> batch = new ArrayList<>();
                    for (int i = start; i < start + k; i++) {
                        batch.add(i);
                    }
                    map(batch, "square");
                }
                return new ProcessResult(true, "mapped " + 2 * k + " subtasks");
            }
            long n = ((Number) ctx.getSubTask()).longValue();
            return new ProcessResult(true, Long.toString(n * n));
        }

        @Override
        public ProcessResult reduce(TaskContext ctx, List<TaskResult> results) {
            long sum = 0;
            for (TaskResult r : results) {
                if ("square".equals(r.getName()) && r.isSuccess()) {
                    sum += Long.parseLong(r.getResult());
                }
            }
            return new ProcessResult(true, "sum " + sum);
        }
    }
}
