package io.jobwheel.examples;

import io.jobwheel.worker.JobHandler;
import io.jobwheel.worker.JobHelper;

/**
 * Handlers written the xxl-job way: {@code @XxlJob} is {@link JobHandler},
 * {@code XxlJobHelper} is {@link JobHelper}; the rest is unchanged.
 */
public class XxlStyleJobs {
    private volatile boolean ready;

    /** A plain handler: reads its parameter, logs, says it succeeded. */
    @JobHandler(value = "demoJobHandler", init = "init", destroy = "destroy")
    public void demoJobHandler() throws Exception {
        String param = JobHelper.getJobParam();
        JobHelper.log("XXL-JOB, Hello World. param={} ready={}", param, ready);
        for (int i = 0; i < 3; i++) {
            JobHelper.log("beat at: {}", i);
        }
        JobHelper.handleSuccess("hello " + (param.isEmpty() ? "world" : param));
    }

    /** A sharding handler: in a BROADCAST job, each worker takes its share. */
    @JobHandler("shardingJobHandler")
    public void shardingJobHandler() {
        int index = JobHelper.getShardIndex();
        int total = JobHelper.getShardTotal();
        JobHelper.log("sharding: index={} total={}", index, total);
        for (int i = 0; i < 10; i++) {
            if (i % total == index) {
                JobHelper.log("item {}: mine", i);
            }
        }
        JobHelper.handleSuccess("shard " + index + "/" + total);
    }

    /** Fails the way xxl-job handlers do. */
    @JobHandler("failingJobHandler")
    public void failingJobHandler() {
        JobHelper.log("about to fail");
        JobHelper.handleFail("no orders to sync");
    }

    /**
     * Sleeps for its parameter in seconds (default 5). A stop from the
     * console interrupts it, as xxl-job's kill interrupts its job thread.
     */
    @JobHandler("sleepJobHandler")
    public void sleepJobHandler() throws InterruptedException {
        String p = JobHelper.getJobParam();
        long seconds = p.isBlank() ? 5 : Long.parseLong(p.strip());
        JobHelper.log("sleeping {}s", seconds);
        Thread.sleep(seconds * 1000);
        JobHelper.handleSuccess("slept " + seconds + "s");
    }

    void init() {
        ready = true;
    }

    void destroy() {
        ready = false;
    }
}
