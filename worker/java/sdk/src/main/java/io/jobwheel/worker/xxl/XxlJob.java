package io.jobwheel.worker.xxl;

import io.jobwheel.worker.JobHandler;
import io.jobwheel.worker.Worker;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * xxl-job's {@code @XxlJob}, with its attributes: handler code written for
 * xxl-job compiles and runs unchanged once its import
 * {@code com.xxl.job.core.handler.annotation.XxlJob} becomes this one. It
 * means exactly what {@link JobHandler} means (jobwheel's own name for it):
 * {@link Worker#registerHandlers(Object)} makes each annotated method the
 * processor called {@link #value()}, which is the {@code executor_handler}
 * an imported xxl-job BEAN job names.
 *
 * <pre>{@code
 * import io.jobwheel.worker.xxl.XxlJob;
 * import io.jobwheel.worker.xxl.XxlJobHelper;
 *
 * @XxlJob("demoJobHandler")
 * public void demoJobHandler() throws Exception {
 *     XxlJobHelper.log("XXL-JOB, Hello World. param={}", XxlJobHelper.getJobParam());
 * }
 * }</pre>
 */
@Documented
@Target({ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
public @interface XxlJob {
    /** The handler's name: the processor name jobs use (xxl-job's JobHandler). */
    String value();

    /** A no-argument method of the same object run once before the handler first runs. */
    String init() default "";

    /** A no-argument method of the same object run when the worker stops, if init ran. */
    String destroy() default "";
}
