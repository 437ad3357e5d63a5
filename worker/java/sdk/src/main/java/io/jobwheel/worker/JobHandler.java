package io.jobwheel.worker;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as the processor called {@link #value()}, the way
 * xxl-job's {@code @XxlJob("name")} marks a handler (code written for
 * xxl-job can keep {@code @XxlJob}: {@link io.jobwheel.worker.xxl.XxlJob}
 * means the same); register the object
 * holding it with {@link Worker#registerHandlers(Object)}. Inside, read the
 * run through {@link JobHelper}:
 *
 * <pre>{@code
 * @JobHandler("shardedSync")
 * public void shardedSync() throws Exception {
 *     JobHelper.log("shard {} of {}, params {}", JobHelper.getShardIndex(), JobHelper.getShardTotal(), JobHelper.getJobParam());
 *     JobHelper.handleSuccess("synced");
 * }
 * }</pre>
 *
 * The method takes no argument (xxl-job 2.2+), or one String (the run's
 * parameters), or one {@link TaskContext}; it may return void, a
 * {@link ProcessResult}, or anything else (its text becomes the result
 * unless a handle* call gave one). Throwing fails the run, as does
 * {@link JobHelper#handleFail}. A job runs it as processorType GO with
 * processor the annotation's name, in any mode: in a BROADCAST job (xxl-job's
 * SHARDING_BROADCAST route) on every selected worker with its shard index
 * and total.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface JobHandler {
    /** The processor name jobs use. */
    String value();

    /** A no-argument method of the same object run once before the handler first runs (xxl-job's init). */
    String init() default "";

    /** A no-argument method of the same object run when the worker stops, if init ran (xxl-job's destroy). */
    String destroy() default "";
}
