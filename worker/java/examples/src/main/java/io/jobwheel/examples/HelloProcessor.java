package io.jobwheel.examples;

import io.jobwheel.worker.BasicProcessor;
import io.jobwheel.worker.OmsLogger;
import io.jobwheel.worker.ProcessResult;
import io.jobwheel.worker.TaskContext;

/**
 * A STANDALONE job's processor written the PowerJob way: only the imports
 * differ from a PowerJob {@code BasicProcessor}. Registered under its class
 * name, as PowerJob's BUILT_IN jobs name theirs.
 */
public class HelloProcessor implements BasicProcessor {
    @Override
    public ProcessResult process(TaskContext context) throws Exception {
        OmsLogger logger = context.getOmsLogger();
        String who = context.getInstanceParams().isBlank() ? context.getJobParams() : context.getInstanceParams();
        if (who.isBlank()) {
            who = "world";
        }
        for (int i = 1; i <= 3; i++) {
            logger.info("hello, {} line={} instance={}", who, i, context.getInstanceId());
        }
        return new ProcessResult(true, "greeted " + who + " three times");
    }
}
