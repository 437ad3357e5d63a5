package io.jobwheel.examples;

import io.jobwheel.worker.xxl.XxlJob;
import io.jobwheel.worker.xxl.XxlJobHelper;

import java.util.concurrent.TimeUnit;

/**
 * Handlers written the xxl-job way, in the shapes of xxl-job's own
 * {@code SampleXxlJob}: only the two imports differ from xxl-job code
 * ({@code com.xxl.job.core.handler.annotation.XxlJob} and
 * {@code com.xxl.job.core.context.XxlJobHelper}). Registered with
 * {@code w.registerHandlers(new XxlStyleJobs())}, each method is the
 * processor its annotation names, as an imported xxl-job BEAN job's
 * {@code executor_handler} says.
 */
public class XxlStyleJobs {
    private static final System.Logger logger = System.getLogger(XxlStyleJobs.class.getName());

    private volatile boolean ready;

    /**
     * 1. A simple handler (BEAN mode): logs through XxlJobHelper, succeeds
     * by default.
     */
    @XxlJob("demoJobHandler")
    public void demoJobHandler() throws Exception {
        XxlJobHelper.log("XXL-JOB, Hello World. param={}", XxlJobHelper.getJobParam());

        for (int i = 0; i < 3; i++) {
            XxlJobHelper.log("beat at:" + i);
            TimeUnit.MILLISECONDS.sleep(100);
        }
        // default success
    }

    /**
     * 2. A sharding broadcast handler: in a BROADCAST job (xxl-job's
     * SHARDING_BROADCAST route) every worker runs it with its shard.
     */
    @XxlJob("shardingJobHandler")
    public void shardingJobHandler() throws Exception {

        // the shard parameters
        int shardIndex = XxlJobHelper.getShardIndex();
        int shardTotal = XxlJobHelper.getShardTotal();

        XxlJobHelper.log("sharding: index={} total={}", shardIndex, shardTotal);

        // the business logic
        for (int i = 0; i < shardTotal; i++) {
            if (i == shardIndex) {
                XxlJobHelper.log("shard {}: mine, processing", i);
            } else {
                XxlJobHelper.log("shard {}: skipped", i);
            }
        }

    }

    /**
     * 3. A handler with a lifecycle: init runs before its first run, destroy
     * when the worker stops. It says its result with handleSuccess.
     */
    @XxlJob(value = "demoJobHandler2", init = "init", destroy = "destroy")
    public void demoJobHandler2() throws Exception {
        XxlJobHelper.log("XXL-JOB, Hello World. ready={}", ready);
        String param = XxlJobHelper.getJobParam();
        XxlJobHelper.handleSuccess("hello " + (param == null || param.trim().isEmpty() ? "world" : param));
    }

    public void init() {
        ready = true;
        logger.log(System.Logger.Level.INFO, "demoJobHandler2 init");
    }

    public void destroy() {
        ready = false;
        logger.log(System.Logger.Level.INFO, "demoJobHandler2 destroy");
    }

    /** 4. Fails the way xxl-job handlers do. */
    @XxlJob("failingJobHandler")
    public void failingJobHandler() throws Exception {
        XxlJobHelper.log("about to fail");
        XxlJobHelper.handleFail("no orders to sync");
    }

    /**
     * 5. Sleeps for its parameter in seconds (default 5). A stop from the
     * console interrupts it, as xxl-job's kill interrupts its job thread.
     */
    @XxlJob("sleepJobHandler")
    public void sleepJobHandler() throws Exception {
        String p = XxlJobHelper.getJobParam();
        long seconds = p == null || p.trim().isEmpty() ? 5 : Long.parseLong(p.trim());
        XxlJobHelper.log("sleeping {}s", seconds);
        TimeUnit.SECONDS.sleep(seconds);
        XxlJobHelper.handleSuccess("slept " + seconds + "s");
    }
}
