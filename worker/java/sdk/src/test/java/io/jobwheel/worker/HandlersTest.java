package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.jobwheel.worker.Support.config;
import static io.jobwheel.worker.Support.dispatch;
import static io.jobwheel.worker.Support.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** xxl-job's way: @JobHandler methods and JobHelper, bound to the running task's thread. */
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
        assertTrue(e.getMessage().contains("has no @JobHandler method"), e.getMessage());
        w.registerHandlers(new Jobs());
        e = assertThrows(IllegalArgumentException.class, () -> w.registerHandlers(new Jobs()));
        assertTrue(e.getMessage().contains("registered twice"), e.getMessage());
    }
}
