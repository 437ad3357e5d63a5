package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.jobwheel.worker.Support.config;
import static io.jobwheel.worker.Support.dispatch;
import static io.jobwheel.worker.Support.ids;
import static io.jobwheel.worker.Support.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Feature start.at (docs/protocol.md §8.6): tasks dispatched ahead of their
 * start time are held, listed as running, and started at that time; a stop,
 * a take-back, the shutdown or their deadline ends them without running.
 * Held tasks that must not start here are held an hour: what is asserted is
 * what happens instead, never how long anything took.
 */
class StartAtTest {
    private Worker w;
    private final AtomicInteger calls = new AtomicInteger();

    @AfterEach
    void stop() {
        if (w != null) {
            w.stopForTest();
        }
    }

    /** Counts its calls; the held tasks of these tests must not make any. */
    private final BasicProcessor counted = ctx -> {
        calls.incrementAndGet();
        return new ProcessResult(true, "ran");
    };

    private Worker worker(WorkerConfig.Builder b, java.util.function.Consumer<Worker> register) {
        w = Support.worker(b, register);
        return w;
    }

    private static ObjectNode held(long id, String processor, Instant startAt) {
        ObjectNode t = task(id, processor);
        t.put("startAt", Protocol.formatTime(startAt));
        return t;
    }

    private static Instant inAnHour() {
        return Instant.now().plus(Duration.ofHours(1));
    }

    private static ObjectNode stop(long instance, List<Long> tasks, String reason, boolean unstarted) {
        ObjectNode s = Protocol.JSON.createObjectNode();
        s.put("instanceId", instance);
        if (!tasks.isEmpty()) {
            tasks.forEach(s.putArray("taskIds")::add);
        }
        s.put("reason", reason);
        if (unstarted) {
            s.put("unstarted", true);
        }
        return s;
    }

    @Test
    void aHeldTaskIsAcceptedListedAsRunningAndTakesASlotWithoutRunning() {
        worker(config().slots(2), w -> w.register("p", counted));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode ack = w.accept(dispatch("orders", 1, held(1, "p", inAnHour())));
        assertEquals(List.of(1L), ids(ack.get("accepted")));
        // As a running task: in every heartbeat and, after a reconnection, in hello (§7.3).
        assertEquals(List.of(1L), ids(w.heartbeat().get("running")));
        assertEquals(List.of(1L), ids(w.hello().get("running")));
        // Sent again (an ack was lost): accepted, held once.
        assertEquals(List.of(1L), ids(w.accept(dispatch("orders", 1, held(1, "p", inAnHour()))).get("accepted")));
        // It counts against the slots; a newer epoch does not drop it (§8.2).
        ack = w.accept(dispatch("orders", 2, held(2, "p", inAnHour()), task(3, "p")));
        assertEquals(List.of(2L), ids(ack.get("accepted")));
        assertEquals(List.of(3L), ids(ack.get("rejected")));
        assertEquals("FULL", ack.get("rejected").get(0).get("code").asText());
        assertEquals(List.of(1L, 2L), w.runningIds());
        rec.drain();
        assertEquals(List.of(), rec.reports, "a held task sends nothing");
        // Stopped now, it ends without ever having run.
        w.stopTasks(stop(0, List.of(1L, 2L), "done", false));
        assertEquals(List.of("STOPPED"), statusesAfterFinal(rec, 1));
        assertEquals(List.of("STOPPED"), statusesAfterFinal(rec, 2));
        assertEquals(0, calls.get());
    }

    private static List<String> statusesAfterFinal(Support.Recorder rec, long id) {
        rec.fin(id);
        return rec.statuses(id);
    }

    @Test
    void aHeldTaskStartsAtItsStartTimeNeverBefore() {
        AtomicReference<Instant> calledAt = new AtomicReference<>();
        AtomicReference<Instant> startedAt = new AtomicReference<>();
        worker(config(), w -> {
            w.register("p", ctx -> {
                calledAt.set(Instant.now());
                startedAt.set(ctx.getStartedAt());
                ctx.getLogger().info("started");
                return new ProcessResult(true, "ran");
            });
            w.register("now", counted);
        });
        Support.Recorder rec = new Support.Recorder(w);
        Instant startAt = Instant.now().plusMillis(800);
        ObjectNode ack = w.accept(dispatch(held(1, "p", startAt), held(2, "now", Instant.now().minusSeconds(60))));
        assertEquals(List.of(1L, 2L), ids(ack.get("accepted")));
        // startAt in the past: at once, as any task.
        assertEquals("SUCCEEDED", rec.fin(2).get("status").asText());
        assertEquals(List.of("RUNNING", "SUCCEEDED"), rec.statuses(2));

        ObjectNode fin = rec.fin(1);
        assertEquals("SUCCEEDED", fin.get("status").asText());
        assertEquals(List.of("RUNNING", "SUCCEEDED"), rec.statuses(1));
        ObjectNode running = rec.reports.stream().filter(r -> r.get("taskId").asLong() == 1).findFirst().orElseThrow();
        Instant at = Protocol.parseTime(running.get("at").asText());
        assertFalse(at.isBefore(startAt), "RUNNING at " + at + " is before startAt " + startAt);
        assertFalse(calledAt.get().isBefore(startAt), "the processor was called at " + calledAt.get() + ", before " + startAt);
        assertEquals(at, startedAt.get(), "getStartedAt() is the start RUNNING reports");
        assertEquals(List.of("started"), rec.texts(101));
    }

    @Test
    void aStopEndsAHeldTaskWithoutRunningItAndFreesItsSlot() {
        worker(config().slots(2), w -> w.register("p", counted));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode other = held(2, "p", inAnHour());
        other.put("instanceId", 202);
        w.accept(dispatch(held(1, "p", inAnHour()), other));
        w.stopTasks(stop(101, List.of(), "the instance was STOPPED", false));
        ObjectNode fin = rec.fin(1);
        assertEquals("STOPPED", fin.get("status").asText());
        assertEquals("stopped before it started: the instance was STOPPED", fin.get("result").asText());
        assertFalse(fin.has("reason"));
        assertEquals(List.of("STOPPED"), rec.statuses(1));
        assertEquals(null, rec.finalOf(2), "a stop of instance 101 ended task 2");
        w.stopTasks(stop(0, List.of(2L), "no longer assigned", false));
        assertEquals("stopped before it started: no longer assigned", rec.fin(2).get("result").asText());
        assertEquals(List.of("STOPPED"), rec.statuses(2));
        Support.waitFor("the slots to come back", () -> w.runningIds().isEmpty());
        assertEquals(List.of(3L, 4L), ids(w.accept(dispatch(held(3, "p", inAnHour()), held(4, "p", inAnHour()))).get("accepted")));
        assertEquals(0, calls.get());
    }

    @Test
    void aTakeBackHandsBackHeldTasksAndLeavesStartedOnesRunning() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        worker(config(), w -> {
            w.register("p", counted);
            w.register("gate", ctx -> {
                release.await(); // a stop would interrupt it
                return new ProcessResult(true, "went on");
            });
        });
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode started = task(2, "gate");
        started.put("instanceId", 101); // the held task's instance
        w.accept(dispatch(held(1, "p", inAnHour()), started));
        Support.waitFor("task 2 to start", () -> {
            rec.drain();
            return rec.statuses(2).contains("RUNNING");
        });
        w.stopTasks(stop(0, List.of(1L, 2L), "the job changed", true));
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertEquals("HANDED_BACK", fin.get("reason").asText());
        assertEquals("handed back before it started: the job changed", fin.get("result").asText());
        assertEquals(List.of("FAILED"), rec.statuses(1));
        // By task ids or by instance, a take-back never touches a started task.
        w.stopTasks(stop(101, List.of(), "the job changed again", true));
        Worker.TaskRun rt = w.runningForTest().get(2L);
        assertFalse(rt.ctx.isCancelled(), "a take-back cancelled a started task: " + rt.ctx.getCancelReason());
        release.countDown();
        assertEquals("went on", rec.fin(2).get("result").asText());
        assertEquals(List.of("RUNNING", "SUCCEEDED"), rec.statuses(2));
        assertEquals(0, calls.get());
    }

    @Test
    void shutdownHandsHeldTasksBackAtOnce() {
        worker(config(), w -> {
            w.register("p", counted);
            w.register("block", ctx -> {
                ctx.awaitCancelled();
                throw new IllegalStateException("cancelled");
            });
        });
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(held(1, "p", inAnHour()), task(2, "block")));
        Support.waitFor("task 2 to run", () -> {
            rec.drain();
            return rec.statuses(2).contains("RUNNING");
        });
        Thread t = new Thread(() -> w.stopForTest());
        t.start();
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertEquals("HANDED_BACK", fin.get("reason").asText());
        assertEquals("handed back before it started: worker " + w.getWorkerId() + " is shutting down", fin.get("result").asText());
        assertEquals(List.of("FAILED"), rec.statuses(1));
        assertTrue(rec.fin(2).get("result").asText().startsWith("worker shutting down"));
        assertEquals(0, calls.get());
        w = null;
    }

    @Test
    void aDeadlineThatPassesWhileHeldFailsTheTaskUnrun() {
        worker(config(), w -> w.register("p", counted));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode t = held(1, "p", inAnHour());
        t.put("deadline", Protocol.formatTime(Instant.now().plusMillis(100)));
        assertEquals(List.of(1L), ids(w.accept(dispatch(t)).get("accepted")));
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertEquals("TIMEOUT", fin.get("reason").asText());
        assertTrue(fin.get("result").asText().startsWith("timed out before it started"), fin.toString());
        assertEquals(List.of("FAILED"), rec.statuses(1));
        assertEquals(0, calls.get());
    }
}
