package io.jobwheel.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jobwheel.worker.Support.config;
import static io.jobwheel.worker.Support.dispatch;
import static io.jobwheel.worker.Support.ids;
import static io.jobwheel.worker.Support.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The worker's decisions without a server: accepting, rejecting, stopping, running processors to their reports. */
class WorkerTest {
    private Worker w;

    @AfterEach
    void stop() {
        if (w != null) {
            w.stopForTest();
        }
    }

    private static final BasicProcessor BLOCK = ctx -> {
        ctx.getLogger().info("blocking");
        ctx.awaitCancelled();
        return new ProcessResult(true, "woken");
    };

    private Worker worker(java.util.function.Consumer<Worker> register) {
        w = Support.worker(config(), register);
        return w;
    }

    @Test
    void rejectionsSayWhy() {
        worker(w -> w.register("p", ctx -> new ProcessResult(true, "ok")));
        ObjectNode unknownKind = task(3, "p");
        unknownKind.put("kind", "SIDEWAYS");
        ObjectNode shell = task(2, "echo hi");
        shell.put("processorType", "SHELL");
        ObjectNode ack = w.accept(dispatch(task(1, "nope"), shell, unknownKind));
        assertTrue(ack.get("ok").asBoolean());
        assertEquals(List.of(), ids(ack.get("accepted")));
        assertEquals(List.of(1L, 2L, 3L), ids(ack.get("rejected")));
        String reasons = ack.get("rejected").toString();
        assertTrue(reasons.contains("no processor named \\\"nope\\\""), reasons);
        assertTrue(reasons.contains("processor type \\\"SHELL\\\" is not supported"), reasons);
        assertTrue(reasons.contains("unknown task kind \\\"SIDEWAYS\\\""), reasons);
    }

    @Test
    void processorsSeeTheRunsTraceparent() {
        // docs/protocol.md §8.5: a traced run's traceparent reaches the
        // processor; a malformed one (or one that is not a string) is
        // ignored, and the task runs all the same.
        String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        worker(w -> w.register("p", ctx -> new ProcessResult(true, "traceparent=" + ctx.getTraceparent()
                + " helper=" + JobHelper.getTraceparent())));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode traced = task(1, "p");
        traced.put("traceparent", tp);
        ObjectNode malformed = task(2, "p");
        malformed.put("traceparent", "00-nonsense");
        ObjectNode notAString = task(3, "p");
        notAString.put("traceparent", 42);
        ObjectNode untraced = task(4, "p");
        ObjectNode ack = w.accept(dispatch(traced, malformed, notAString, untraced));
        assertEquals(List.of(1L, 2L, 3L, 4L), ids(ack.get("accepted")));
        assertEquals("traceparent=" + tp + " helper=" + tp, rec.fin(1).get("result").asText());
        for (long id : new long[]{2, 3, 4}) {
            ObjectNode fin = rec.fin(id);
            assertEquals("SUCCEEDED", fin.get("status").asText());
            assertEquals("traceparent= helper=", fin.get("result").asText(), "task " + id);
        }
        assertEquals("", JobHelper.getTraceparent(), "outside a run");
    }

    @Test
    void slotsBoundTheTasksAtOnce() {

        w = Support.worker(config().slots(2), w -> w.register("block", BLOCK));
        ObjectNode ack = w.accept(dispatch(task(1, "block"), task(2, "block"), task(3, "block")));
        assertEquals(List.of(1L, 2L), ids(ack.get("accepted")));
        JsonNode r = ack.get("rejected").get(0);
        assertEquals(3, r.get("taskId").asLong());
        assertEquals("FULL", r.get("code").asText());
        assertTrue(r.get("reason").asText().contains("no free slot"));
    }

    @Test
    void tasksOfAnotherAppAreRejected() {
        worker(w -> w.register("p", ctx -> new ProcessResult(true, "")));
        ObjectNode ack = w.accept(dispatch("billing", 1, task(1, "p")));
        assertEquals(List.of(1L), ids(ack.get("rejected")));
        assertTrue(ack.get("rejected").get(0).get("reason").asText().contains("dispatch is for app \"billing\""));
    }

    @Test
    void epochsFenceOldOwners() {
        worker(w -> w.register("p", ctx -> new ProcessResult(true, "")));
        Support.Recorder rec = new Support.Recorder(w);
        assertEquals(List.of(1L), ids(w.accept(dispatch("orders", 5, task(1, "p"))).get("accepted")));
        rec.fin(1);
        ObjectNode ack = w.accept(dispatch("orders", 4, task(2, "p")));
        assertEquals(List.of(2L), ids(ack.get("rejected")));
        assertTrue(ack.get("rejected").get(0).get("reason").asText().startsWith("stale epoch 4"));
        assertEquals(List.of(3L), ids(w.accept(dispatch("orders", 6, task(3, "p"))).get("accepted")));
        assertEquals(List.of(4L), ids(w.accept(dispatch("orders", 5, task(4, "p"))).get("rejected")));
    }

    @Test
    void aTaskDispatchedTwiceRunsOnce() {
        AtomicInteger runs = new AtomicInteger();
        worker(w -> w.register("block", ctx -> {
            runs.incrementAndGet();
            return BLOCK.process(ctx);
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "block")));
        Support.waitFor("the task to start", () -> runs.get() == 1);
        assertEquals(List.of(1L), ids(w.accept(dispatch(task(1, "block"))).get("accepted")));
        w.stopTasks(stop(101, List.of(), "done"));
        rec.fin(1);
        assertEquals(1, runs.get());
    }

    @Test
    void noNewTasksWhileShuttingDown() {
        worker(w -> w.register("p", ctx -> new ProcessResult(true, "")));
        Thread t = new Thread(() -> w.stopForTest());
        t.start();
        Support.waitFor("the worker to refuse new tasks", () -> {
            ObjectNode ack = w.accept(dispatch(task(1, "p")));
            return ack.get("rejected").toString().contains("is shutting down");
        });
        w = null;
    }

    private static ObjectNode stop(long instance, List<Long> tasks, String reason) {
        ObjectNode s = Protocol.JSON.createObjectNode();
        s.put("instanceId", instance);
        tasks.forEach(s.putArray("taskIds")::add);
        s.put("reason", reason);
        return s;
    }

    @Test
    void stopsByInstanceByTaskAndWithInstanceZero() {
        worker(w -> w.register("block", BLOCK));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode a = task(1, "block");
        ObjectNode b = task(2, "block");
        b.put("instanceId", 101);
        w.accept(dispatch(a, b));
        w.stopTasks(stop(101, List.of(1L), "by task"));
        ObjectNode fa = rec.fin(1);
        assertEquals("STOPPED", fa.get("status").asText());
        assertTrue(fa.get("result").asText().startsWith("stopped: by task"), fa.toString());
        assertEquals(null, rec.finalOf(2), "a stop naming task 1 stopped task 2");
        w.stopTasks(stop(0, List.of(2L), "instance zero"));
        assertEquals("STOPPED", rec.fin(2).get("status").asText());
        // What a stopped processor still returns follows the reason.
        w.register("returns", ctx -> {
            try {
                ctx.awaitCancelled();
            } catch (InterruptedException e) {
                // the stop interrupts it too
            }
            return new ProcessResult(true, "woken");
        });
        w.accept(dispatch(task(3, "returns")));
        w.stopTasks(stop(103, List.of(), "the instance was STOPPED"));
        assertEquals("stopped: the instance was STOPPED\nwoken", rec.fin(3).get("result").asText());
    }

    @Test
    void successWithLinesInOrderBeforeTheFinalReport() {
        worker(w -> w.register("p", ctx -> {
            for (int i = 1; i <= 3; i++) {
                ctx.getLogger().info("line {}", i);
            }
            return new ProcessResult(true, "wrote 3 lines; params=" + ctx.getInstanceParams());
        }));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode t = task(1, "p");
        t.put("params", "p-1");
        w.accept(dispatch(t));
        ObjectNode fin = rec.fin(1);
        assertEquals("SUCCEEDED", fin.get("status").asText());
        assertEquals("wrote 3 lines; params=p-1", fin.get("result").asText());
        assertEquals(List.of("RUNNING", "SUCCEEDED"), rec.statuses(1));
        assertEquals(List.of("line 1", "line 2", "line 3"), rec.texts(101));
        for (ObjectNode l : rec.lines) {
            assertEquals("INFO", l.get("level").asText());
            assertEquals(1, l.get("taskId").asLong());
        }
    }

    @Test
    void aHeartbeatNeverMissesAnEndingTask() {
        CountDownLatch go = new CountDownLatch(1);
        worker(w -> w.register("p", ctx -> {
            go.await();
            return new ProcessResult(true, "");
        }));
        w.accept(dispatch(task(1, "p")));
        assertEquals(List.of(1L), w.runningIds());
        go.countDown();
        // Until its final report is acknowledged, every look lists it.
        Support.waitFor("the final report queued", () -> w.outbox().unackedFinals().contains(1L));
        assertEquals(List.of(1L), w.runningIds());
        Support.Recorder rec = new Support.Recorder(w);
        rec.fin(1);
        Support.waitFor("the task to leave the running list", () -> w.runningIds().isEmpty());
    }

    @Test
    void anExceptionFailsTheTaskWithItsStackInTheLog() {
        worker(w -> w.register("p", ctx -> {
            throw new IllegalStateException("conformance failure");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "p")));
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertEquals("conformance failure", fin.get("result").asText());
        assertFalse(fin.has("reason"));
        assertTrue(rec.texts(101).get(0).startsWith("java.lang.IllegalStateException: conformance failure"), rec.texts(101).toString());
    }

    @Test
    void aFailedResultAndNullFail() {
        worker(w -> {
            w.register("no", ctx -> new ProcessResult(false, "no orders"));
            w.register("null", ctx -> null);
        });
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "no"), task(2, "null")));
        assertEquals("FAILED", rec.fin(1).get("status").asText());
        assertEquals("no orders", rec.fin(1).get("result").asText());
        assertEquals("the processor returned no ProcessResult (null)", rec.fin(2).get("result").asText());
    }

    @Test
    void theDeadlineInterruptsTheProcessor() {
        worker(w -> w.register("sleep", ctx -> {
            Thread.sleep(Support.FAILSAFE.toMillis() * 2); // only an interrupt ends it
            return new ProcessResult(true, "slept");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode t = task(1, "sleep");
        t.put("deadline", Protocol.formatTime(Instant.now().plusMillis(200)));
        w.accept(dispatch(t));
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertEquals("TIMEOUT", fin.get("reason").asText());
        assertTrue(fin.get("result").asText().startsWith("timed out after"), fin.toString());
    }

    @Test
    void aProcessorThatIgnoresAStopIsReportedAnywayAndKeepsItsSlot() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        w = Support.worker(config().slots(2), w -> w.register("stubborn", ctx -> {
            started.countDown();
            while (true) {
                try {
                    if (release.await(Support.FAILSAFE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                        return new ProcessResult(true, "late");
                    }
                } catch (InterruptedException e) {
                    // ignores the interrupt on purpose
                }
            }
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "stubborn")));
        started.await();
        w.stopTasks(stop(101, List.of(), "stop it"));
        assertEquals("STOPPED", rec.fin(1).get("status").asText());
        // Reported, but its thread still runs: its slot is still taken.
        ObjectNode ack = w.accept(dispatch(task(2, "stubborn"), task(3, "stubborn")));
        assertEquals(List.of(2L), ids(ack.get("accepted")));
        assertEquals(List.of(3L), ids(ack.get("rejected")));
        release.countDown();
        assertEquals("late", rec.fin(2).get("result").asText());
        Support.waitFor("the abandoned task's slot to come back", () -> w.runningForTest().isEmpty());
        assertEquals(List.of(4L, 5L), ids(w.accept(dispatch(task(4, "stubborn"), task(5, "stubborn"))).get("accepted")));
        assertEquals("late", rec.fin(4).get("result").asText());
    }

    @Test
    void shutdownFailsRunningTasksSoTheServerMayRetryThem() {
        worker(w -> w.register("block", ctx -> {
            ctx.awaitCancelled();
            throw new IllegalStateException("cancelled");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "block")));
        Support.waitFor("the task to run", () -> {
            rec.drain();
            return rec.statuses(1).contains("RUNNING");
        });
        Thread t = new Thread(() -> w.stopForTest());
        t.start();
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertTrue(fin.get("result").asText().startsWith("worker shutting down"), fin.toString());
        w = null;
    }

    @Test
    void registerRefusesDuplicatesAndLambdasWithoutAName() {
        worker(w -> w.register("p", ctx -> null));
        assertThrows(IllegalArgumentException.class, () -> w.register("p", ctx -> null));
        BasicProcessor lambda = ctx -> null;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.register(lambda));
        assertTrue(e.getMessage().contains("use register(name, processor)"));
    }

    static class Named implements BasicProcessor {
        @Override
        public ProcessResult process(TaskContext context) {
            return new ProcessResult(true, "named");
        }
    }

    /** What Spring's CGLIB makes of a processor bean. */
    static class Named$$SpringCGLIB$$0 extends Named {
    }

    @Test
    void aProcessorRegisteredByItsClassHasTheClassName() {
        worker(w -> w.register(new Named()));
        assertEquals("[\"io.jobwheel.worker.WorkerTest$Named\"]", w.hello().get("processors").toString());
        w.stopForTest();
        worker(w -> w.register(new Named$$SpringCGLIB$$0()));
        assertEquals("[\"io.jobwheel.worker.WorkerTest$Named\"]", w.hello().get("processors").toString(),
                "a proxy is named by the class it proxies");
    }

    @Test
    void helloCarriesWhatTheServerNeeds() {
        worker(w -> w.register("b", ctx -> null).register("a", ctx -> null));
        ObjectNode h = w.hello();
        assertEquals("orders", h.get("app").asText());
        assertEquals("1", h.get("protocol").asText());
        assertEquals("s3cret", h.get("auth").asText());
        assertEquals(8, h.get("slots").asInt());
        assertEquals("[\"a\",\"b\"]", h.get("processors").toString());
        assertEquals("[\"results.paged\",\"start.at\"]", h.get("features").toString());
        assertTrue(h.get("metrics").get("cpuCores").asInt() > 0);
        assertTrue(h.get("workerId").asText().matches(".+-[0-9a-f]{12}"));
        assertFalse(h.has("jobSet"));
    }

    @Test
    void fullJitterDoublingUpToTheCap() {
        worker(w -> {
        });
        for (int n = 0; n < 8; n++) {
            long cap = Math.min(200L << n, 3000) * 1_000_000L;
            for (int i = 0; i < 200; i++) {
                long d = w.backoffNanos(n);
                assertTrue(d > 0 && d <= cap, n + ": " + d);
            }
        }
    }

    @Test
    void workflowContextAdditionsRideOnTheFinalReport() {
        worker(w -> w.register("wf", ctx -> {
            Map<String, Object> v = ctx.getWorkflowContext().getValues();
            ctx.getWorkflowContext().appendData2WfContext("doubled", ((Number) v.get("n")).intValue() * 2);
            ctx.getWorkflowContext().appendData2WfContext("echo", ctx.getUpstream().get("up"));
            ctx.getWorkflowContext().appendData2WfContext("obj", Map.of("k", List.of(1, 2)));
            return new ProcessResult(true, ctx.getWorkflowContext().fetchWorkflowContext().get("obj"));
        }));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode t = task(1, "wf");
        t.put("workflowRunId", 7);
        t.put("workflowNode", "n1");
        t.putObject("workflowContext").put("n", 21).put("other", "kept");
        t.putObject("upstream").put("up", "hello");
        w.accept(dispatch(t));
        ObjectNode fin = rec.fin(1);
        assertEquals("{\"doubled\":42,\"echo\":\"hello\",\"obj\":{\"k\":[1,2]}}", fin.get("workflowContext").toString());
        assertEquals("{\"k\":[1,2]}", fin.get("result").asText());
    }

    @Test
    void outsideAWorkflowAdditionsAreIgnored() {
        worker(w -> w.register("wf", ctx -> {
            ctx.getWorkflowContext().appendData2WfContext("k", 1);
            return new ProcessResult(true, String.valueOf(ctx.getWorkflowContext().getWfInstanceId()));
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "wf")));
        ObjectNode fin = rec.fin(1);
        assertFalse(fin.has("workflowContext"));
        assertEquals("null", fin.get("result").asText());
    }

    @Test
    void taskLinesBelowTheLevelAreNotShipped() {
        w = Support.worker(config().taskLogLevel(TaskLogger.Level.INFO), w -> w.register("p", ctx -> {
            ctx.getLogger().debug("noise");
            ctx.getLogger().warn("careful {}", 1);
            ctx.getLogger().error("boom", new RuntimeException("inner"));
            return new ProcessResult(true, "");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "p")));
        rec.fin(1);
        List<String> texts = rec.texts(101);
        assertEquals(2, texts.size(), texts.toString());
        assertEquals("careful 1", texts.get(0));
        assertTrue(texts.get(1).startsWith("boom\njava.lang.RuntimeException: inner"), texts.get(1));
        assertEquals("WARN", rec.lines.get(0).get("level").asText());
        assertEquals("ERROR", rec.lines.get(1).get("level").asText());
    }

    @Test
    void virtualThreadsWhereTheJvmHasThem() {
        boolean has = Runtime.version().feature() >= 21;
        assertEquals(has, Slots.virtualThreadsAvailable());
        StringBuilder d = new StringBuilder();
        Slots.executor(4, null, d).shutdown();
        assertEquals(has, d.toString().startsWith("a virtual thread per task"), d.toString());
        if (!has) {
            ConfigException e = assertThrows(ConfigException.class, () -> config().virtualThreads(true).build());
            assertEquals("virtualThreads", e.getField());
        }
    }

    @Test
    void processorsRunOnTheConfiguredThreads() {
        String[] thread = new String[1];
        w = Support.worker(config().virtualThreads(false), w -> w.register("p", ctx -> {
            thread[0] = Thread.currentThread().getName();
            return new ProcessResult(true, "");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "p")));
        rec.fin(1);
        assertTrue(thread[0].startsWith("jobwheel-task-"), thread[0]);
    }
}
