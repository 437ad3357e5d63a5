package io.jobwheel.worker.xxl;

import io.jobwheel.worker.Worker;

/**
 * xxl-job's {@code IJobHandler}: a handler as a class of its own (older
 * xxl-job bean handlers, and GLUE(Java) sources), which compiles and runs
 * unchanged once its import {@code com.xxl.job.core.handler.IJobHandler}
 * becomes this one. Register it by name with
 * {@link Worker#register(String, IJobHandler)} where xxl-job's code called
 * {@code XxlJobExecutor.registJobHandler(name, handler)}. Inside
 * {@link #execute()}, {@link XxlJobHelper} reads and answers the run, as in
 * an {@link XxlJob} method.
 */
public abstract class IJobHandler {
    /** Runs the handler once for a run (a task) of a job naming it. */
    public abstract void execute() throws Exception;

    /** Run once before the handler first runs. */
    public void init() throws Exception {
        // nothing by default
    }

    /** Run when the worker stops, if init ran. */
    public void destroy() throws Exception {
        // nothing by default
    }
}
