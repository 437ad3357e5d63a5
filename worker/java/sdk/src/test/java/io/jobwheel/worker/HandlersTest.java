package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jobwheel.worker.xxl.IJobHandler;
import io.jobwheel.worker.xxl.XxlJob;
import io.jobwheel.worker.xxl.XxlJobHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.jobwheel.worker.Support.config;
import static io.jobwheel.worker.Support.dispatch;
import static io.jobwheel.worker.Support.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * xxl-job's way: @JobHandler methods and JobHelper, bound to the running
 * task's thread; and xxl-job's own names (@XxlJob, XxlJobHelper,
 * IJobHandler), so that its handler code runs with only its imports changed.
 */
class HandlersTest {
    private Worker w;

    @AfterEach
    void stop() {
        if (w != null) {
            w.stopForTest();
        }
    }

    static class Jobs {
        final List<String> events = new ArrayList<>();

        @JobHandler(value = "demo", init = "init", destroy = "destroy")
        public void demo() {
            JobHelper.log("param={} shard={}/{}", JobHelper.getJobParam(), JobHelper.getShardIndex(), JobHelper.getShardTotal());
            JobHelper.handleSuccess("done " + JobHelper.getJobParam());
        }

        @JobHandler("fails")
        public void fails() {
            JobHelper.handleFail("no orders");
        }

        @JobHandler("timesOut")
        public void timesOut() {
            JobHelper.handleTimeout();
        }

        @JobHandler("throws")
        public void throwsOne() throws Exception {
            throw new java.io.IOException("disk full");
        }

        @JobHandler("returns")
        public String returns(String param) {
            return "got " + param;
        }

        @JobHandler("traced")
        public String traced() {
            return "traceparent " + JobHelper.getTraceparent();
        }

        @JobHandler("context")

        ProcessResult context(TaskContext ctx) {
            return new ProcessResult(true, "task " + ctx.getTaskId());
        }

        void init() {
            events.add("init");
        }

        void destroy() {
            events.add("destroy");
        }
    }

    @Test
    void handlersRunWithTheirRunBoundToTheThread() {
        Jobs jobs = new Jobs();
        List<String> names = new ArrayList<>();
        w = Support.worker(config(), w -> names.addAll(w.registerHandlers(jobs)));
        assertEquals(List.of("context", "demo", "fails", "returns", "throws", "timesOut", "traced"), names.stream().sorted().toList());
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode demo = task(1, "demo");
        demo.put("jobParams", "job");
        demo.put("params", "run");
        demo.put("executionMode", "BROADCAST");
        demo.put("kind", "BROADCAST");
        demo.put("shardIndex", 2);
        demo.put("shardTotal", 4);
        w.accept(dispatch(demo, task(2, "fails"), task(3, "timesOut"), task(4, "throws")));
        assertEquals("done run", rec.fin(1).get("result").asText(), "the run's parameters win over the job's, as xxl-job's trigger param");
        assertEquals(List.of("param=run shard=2/4"), rec.texts(101));
        assertEquals("FAILED", rec.fin(2).get("status").asText());
        assertEquals("no orders", rec.fin(2).get("result").asText());
        assertEquals("the handler said it timed out", rec.fin(3).get("result").asText());
        assertEquals("disk full", rec.fin(4).get("result").asText());
        ObjectNode ret = task(5, "returns");
        ret.put("jobParams", "p");
        w.accept(dispatch(ret, task(6, "context")));
        assertEquals("got p", rec.fin(5).get("result").asText());
        assertEquals("task 6", rec.fin(6).get("result").asText());
        ObjectNode traced = task(7, "traced");
        traced.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        w.accept(dispatch(traced, task(8, "traced")));
        assertEquals("traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", rec.fin(7).get("result").asText(),
                "a handler reads the run's trace context through JobHelper");
        assertEquals("traceparent ", rec.fin(8).get("result").asText(), "not traced: \"\"");
        assertEquals(List.of("init"), jobs.events, "init runs once, before the handler's first run");
        w.stopForTest();
        w = null;
        assertEquals(List.of("init", "destroy"), jobs.events);
    }

    @Test
    void outsideARunTheHelperSaysSo() {
        assertFalse(JobHelper.log("nobody hears this"));
        assertFalse(JobHelper.handleSuccess());
        assertEquals("", JobHelper.getJobParam());
        assertEquals(1, JobHelper.getShardTotal());
        assertEquals("", JobHelper.getTraceparent());

    }

    /** Written for xxl-job (its SampleXxlJob's shapes); only the imports are jobwheel's. */
    static class XxlJobs {
        final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());

        @XxlJob(value = "demoJobHandler", init = "init", destroy = "destroy")
        public void demoJobHandler() throws Exception {
            XxlJobHelper.log("XXL-JOB, Hello World. param={}", XxlJobHelper.getJobParam());
            for (int i = 0; i < 2; i++) {
                XxlJobHelper.log("beat at:" + i);
            }
            // default success
        }

        @XxlJob("shardingJobHandler")
        public void shardingJobHandler() throws Exception {
            int shardIndex = XxlJobHelper.getShardIndex();
            int shardTotal = XxlJobHelper.getShardTotal();
            XxlJobHelper.log("job {} log {}: shard {} of {}", XxlJobHelper.getJobId(), XxlJobHelper.getLogId(), shardIndex, shardTotal);
            boolean logged = XxlJobHelper.handleSuccess("shard " + shardIndex + "/" + shardTotal);
            XxlJobHelper.log("handled {}, log file {}, at {}", logged, XxlJobHelper.getLogFileName(), XxlJobHelper.getLogDateTime() > 0);
        }

        @XxlJob("commandJobHandler")
        public void commandJobHandler() throws Exception {
            String command = XxlJobHelper.getJobParam();
            if (command == null || command.trim().length() == 0) {
                XxlJobHelper.handleFail("command empty.");
                return;
            }
            try {
                throw new java.io.IOException("cannot run " + command);
            } catch (Exception e) {
                XxlJobHelper.log(e);
            }
            XxlJobHelper.handleFail();
        }

        @XxlJob("resultJobHandler")
        public void resultJobHandler() {
            XxlJobHelper.handleSuccess("half done");
            XxlJobHelper.handleResult(500, null);
        }

        @XxlJob("timeoutJobHandler")
        public void timeoutJobHandler() {
            XxlJobHelper.handleTimeout("upstream too slow");
        }

        @XxlJob("childThreadJobHandler")
        public void childThreadJobHandler() throws Exception {
            Thread t = new Thread(() -> XxlJobHelper.log("from a thread the handler started, param {}", XxlJobHelper.getJobParam()));
            t.start();
            t.join();
        }

        public void init() {
            events.add("init");
        }

        public void destroy() {
            events.add("destroy");
        }
    }

    /** An xxl-job IJobHandler (older bean handlers, GLUE(Java) sources). */
    static class GlueJobHandler extends IJobHandler {
        final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        public void execute() throws Exception {
            XxlJobHelper.log("XXL-JOB, Hello World.");
            XxlJobHelper.handleSuccess("glue " + XxlJobHelper.getJobParam());
        }

        @Override
        public void init() {
            events.add("init");
        }

        @Override
        public void destroy() {
            events.add("destroy");
        }
    }

    @Test
    void xxlJobCodeRunsWithOnlyItsImportsChanged() {
        XxlJobs jobs = new XxlJobs();
        GlueJobHandler glue = new GlueJobHandler();
        List<String> names = new ArrayList<>();
        w = Support.worker(config(), w -> {
            names.addAll(w.registerHandlers(jobs));
            w.register("glueJobHandler", glue);
        });
        assertEquals(List.of("childThreadJobHandler", "commandJobHandler", "demoJobHandler", "resultJobHandler",
                "shardingJobHandler", "timeoutJobHandler"), names.stream().sorted().toList());
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode demo = task(1, "demoJobHandler");
        demo.put("jobParams", "p1");
        ObjectNode sharding = task(2, "shardingJobHandler");
        sharding.put("jobId", 7);
        sharding.put("executionMode", "BROADCAST");
        sharding.put("kind", "BROADCAST");
        sharding.put("shardIndex", 1);
        sharding.put("shardTotal", 3);
        ObjectNode command = task(4, "commandJobHandler");
        command.put("jobParams", "ls -a");
        w.accept(dispatch(demo, sharding, task(3, "commandJobHandler"), command));
        assertEquals("SUCCEEDED", rec.fin(1).get("status").asText(), "a handler that returns succeeds, as in xxl-job");
        assertEquals(List.of("XXL-JOB, Hello World. param=p1", "beat at:0", "beat at:1"), rec.texts(101));
        assertEquals("shard 1/3", rec.fin(2).get("result").asText());
        assertEquals(List.of("job 7 log 102: shard 1 of 3", "handled true, log file null, at true"), rec.texts(102));
        assertEquals("FAILED", rec.fin(3).get("status").asText());
        assertEquals("command empty.", rec.fin(3).get("result").asText(), "no parameter: \"\", as xxl-job's empty executor_param");
        assertEquals("FAILED", rec.fin(4).get("status").asText());
        assertTrue(rec.texts(104).get(0).startsWith("java.io.IOException: cannot run ls -a\n\tat "), rec.texts(104).toString());

        ObjectNode child = task(7, "childThreadJobHandler");
        child.put("jobParams", "inherited");
        ObjectNode g = task(8, "glueJobHandler");
        g.put("jobParams", "gp");
        w.accept(dispatch(task(5, "resultJobHandler"), task(6, "timeoutJobHandler"), child, g));
        assertEquals("FAILED", rec.fin(5).get("status").asText());
        assertEquals("half done", rec.fin(5).get("result").asText(), "handleResult(500, null) keeps the message, as in xxl-job");
        assertEquals("timed out: upstream too slow", rec.fin(6).get("result").asText());
        assertEquals("SUCCEEDED", rec.fin(7).get("status").asText());
        assertEquals(List.of("from a thread the handler started, param inherited"), rec.texts(107),
                "a thread the handler starts logs to its run, as xxl-job's inherited context");
        assertEquals("glue gp", rec.fin(8).get("result").asText());
        assertEquals(List.of("XXL-JOB, Hello World."), rec.texts(108));

        assertEquals(List.of("init"), jobs.events, "init runs once, before the handler's first run");
        assertEquals(List.of("init"), glue.events);
        w.stopForTest();
        w = null;
        assertEquals(List.of("init", "destroy"), jobs.events);
        assertEquals(List.of("init", "destroy"), glue.events);
    }

    @Test
    void outsideARunXxlJobHelperAnswersAsXxlJobs() {
        assertNull(XxlJobHelper.getJobParam());
        assertEquals(-1, XxlJobHelper.getJobId());
        assertEquals(-1, XxlJobHelper.getLogId());
        assertEquals(-1, XxlJobHelper.getShardIndex());
        assertEquals(-1, XxlJobHelper.getShardTotal());
        assertNull(XxlJobHelper.getLogFileName());
        assertFalse(XxlJobHelper.log("nobody hears this {}", 1));
        assertFalse(XxlJobHelper.log(new RuntimeException("nor this")));
        assertFalse(XxlJobHelper.handleSuccess("x"));
        assertFalse(XxlJobHelper.handleResult(200, "x"));
    }

    static class Both {
        @JobHandler("a")
        @XxlJob("a")
        public void a() {
        }
    }

    static class XxlNoDestroy {
        @XxlJob(value = "y", destroy = "gone")
        public void y() {
        }
    }

    static class Bad {
        @JobHandler("two")
        public void two(String a, String b) {
        }
    }

    static class NoInit {
        @JobHandler(value = "x", init = "missing")
        public void x() {
        }
    }

    @Test
    void badHandlersAreRefusedNamingTheMethod() {
        w = Support.worker(config(), w -> {
        });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.registerHandlers(new Bad()));
        assertTrue(e.getMessage().contains("HandlersTest$Bad.two: a handler takes no argument"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> w.registerHandlers(new NoInit()));
        assertTrue(e.getMessage().contains("init method missing() not found"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> w.registerHandlers(new Object()));
        assertTrue(e.getMessage().contains("has no @JobHandler or @XxlJob method"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> w.registerHandlers(new Both()));
        assertTrue(e.getMessage().contains("@JobHandler and @XxlJob on io.jobwheel.worker.HandlersTest$Both.a: use one of them"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> w.registerHandlers(new XxlNoDestroy()));
        assertTrue(e.getMessage().contains("@XxlJob on io.jobwheel.worker.HandlersTest$XxlNoDestroy.y: destroy method gone() not found"),
                e.getMessage());
        w.registerHandlers(new Jobs());
        e = assertThrows(IllegalArgumentException.class, () -> w.registerHandlers(new Jobs()));
        assertTrue(e.getMessage().contains("registered twice"), e.getMessage());
    }
}
