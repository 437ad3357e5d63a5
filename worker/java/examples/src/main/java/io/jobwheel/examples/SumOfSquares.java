package io.jobwheel.examples;

import io.jobwheel.worker.MapReduceProcessor;
import io.jobwheel.worker.ProcessResult;
import io.jobwheel.worker.TaskContext;
import io.jobwheel.worker.TaskResult;

import java.util.ArrayList;
import java.util.List;

/**
 * A MAP_REDUCE job's processor written the PowerJob way: the root splits
 * 1..n (n from the parameters, default 1000) into chunks of 100, each chunk
 * a subtask that sums its squares, and reduce adds them up. The subtasks are
 * objects of a class of this package, which come back as that class.
 */
public class SumOfSquares implements MapReduceProcessor {
    /** A subtask: the numbers from..to. */
    static class Chunk {
        long from;
        long to;

        Chunk() {
        }

        Chunk(long from, long to) {
            this.from = from;
            this.to = to;
        }
    }

    @Override
    public ProcessResult process(TaskContext context) throws Exception {
        if (isRootTask()) {
            String p = context.getInstanceParams().isBlank() ? context.getJobParams() : context.getInstanceParams();
            long n = p.isBlank() ? 1000 : Long.parseLong(p.strip());
            List<Chunk> chunks = new ArrayList<>();
            for (long from = 1; from <= n; from += 100) {
                chunks.add(new Chunk(from, Math.min(from + 99, n)));
            }
            map(chunks, "CHUNK");
            context.getOmsLogger().info("mapped {} chunks of 1..{}", chunks.size(), n);
            return new ProcessResult(true, "mapped " + chunks.size() + " chunks");
        }
        if (context.getSubTask() instanceof Chunk) {
            Chunk c = (Chunk) context.getSubTask();
            long sum = 0;
            for (long i = c.from; i <= c.to; i++) {
                sum += i * i;
            }
            return new ProcessResult(true, Long.toString(sum));
        }
        return new ProcessResult(false, "unexpected subtask " + context.getSubTask());
    }

    @Override
    public ProcessResult reduce(TaskContext context, List<TaskResult> taskResults) {
        long total = 0;
        int chunks = 0;
        for (TaskResult r : taskResults) { // one pass: the results may come in pages
            if ("CHUNK".equals(r.getTaskName()) && r.isSuccess()) {
                total += Long.parseLong(r.getResult());
                chunks++;
            }
        }
        context.getOmsLogger().info("summed chunks={} total={}", chunks, total);
        return new ProcessResult(true, "sum of squares = " + total);
    }
}
