package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutboxTest {
    private final AtomicLong ids = new AtomicLong();

    private static Outbox.LogLine line(long instance, String text) {
        return new Outbox.LogLine(instance, 1, Protocol.formatTime(Instant.now()), "INFO", text);
    }

    private static ObjectNode report(long task, String status) {
        ObjectNode b = Protocol.JSON.createObjectNode();
        b.put("taskId", task);
        b.put("instanceId", 100 + task);
        b.put("status", status);
        b.put("at", Protocol.formatTime(Instant.now()));
        return b;
    }

    private static ObjectNode ack(boolean ok) {
        ObjectNode a = Protocol.JSON.createObjectNode();
        a.put("ok", ok);
        if (!ok) {
            a.put("error", "the database is away");
        }
        return a;
    }

    private List<Outbox.Message> take(Outbox o) {
        return o.take(ids::incrementAndGet);
    }

    private static List<String> types(List<Outbox.Message> ms) {
        List<String> out = new ArrayList<>();
        ms.forEach(m -> out.add(m.type));
        return out;
    }

    @Test
    void linesAreNumberedPerWorkerAcrossInstances() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        o.addLog(line(1, "a"));
        o.addLog(line(2, "b"));
        o.addLog(line(1, "c"));
        List<Outbox.Message> ms = take(o);
        assertEquals(1, ms.size());
        List<Long> seqs = new ArrayList<>();
        ms.get(0).lines.forEach(l -> seqs.add(l.seq));
        assertEquals(List.of(1L, 2L, 3L), seqs);
    }

    @Test
    void batchesStayWithinTheLimits() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 5000, 100, 100, 200);
        for (int i = 0; i < 2500; i++) {
            o.addLog(line(1, "line " + i));
        }
        for (Outbox.Message m : take(o)) {
            assertTrue(m.lines.size() <= Protocol.MAX_BATCH);
        }
        Outbox big = new Outbox(Support.QUIET, 5000, 100, 100, 200);
        for (int i = 0; i < 1000; i++) {
            big.addLog(line(1, "x".repeat(5000)));
        }
        for (Outbox.Message m : take(big)) {
            assertTrue(m.lines.size() * 5000 <= Outbox.BATCH_BYTES, m.lines.size() + " lines of 5000 bytes");
        }
    }

    @Test
    void theWindowBoundsMessagesInFlight() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100, 2, 200);
        o.addMaps(List.of(new Outbox.MapChunk(1, 1, "n", "t1/1", 0), new Outbox.MapChunk(1, 1, "n", "t1/2", 0),
                new Outbox.MapChunk(1, 1, "n", "t1/3", 0)));
        List<Outbox.Message> first = take(o);
        assertEquals(2, first.size());
        assertEquals(0, take(o).size());
        o.ack(first.get(0).id, ack(true));
        assertEquals(1, take(o).size());
    }

    @Test
    void mapsGoFirstThenLogsThenReports() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100, 1, 200);
        o.addReport(report(1, "RUNNING"));
        o.addLog(line(1, "a"));
        o.addMaps(List.of(new Outbox.MapChunk(1, 1, "n", "t1/1", 0)));
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Outbox.Message m = take(o).get(0);
            order.add(m.type);
            o.ack(m.id, ack(true));
        }
        assertEquals(List.of("map", "logs", "report"), order);
    }

    @Test
    void aFinalReportWaitsForItsLines() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        o.addLog(line(101, "last words"));
        o.addReport(report(1, "SUCCEEDED"));
        List<Outbox.Message> ms = take(o);
        assertEquals(List.of("logs"), types(ms), "the report went with its lines unacknowledged");
        assertEquals(0, take(o).size());
        o.ack(ms.get(0).id, ack(true));
        assertEquals(List.of("report"), types(take(o)));
    }

    @Test
    void tasksStayListedUntilTheirFinalReportIsAcked() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        o.addReport(report(1, "SUCCEEDED"));
        assertEquals(Set.of(1L), o.unackedFinals());
        Outbox.Message m = take(o).get(0);
        assertEquals(Set.of(1L), o.unackedFinals());
        o.ack(m.id, ack(false)); // refused: still owed
        assertEquals(Set.of(1L), o.unackedFinals());
        o.requeue();
        Support.waitFor("the refused report to be sent again after the pause", () -> {
            List<Outbox.Message> again = take(o);
            again.forEach(x -> o.ack(x.id, ack(true)));
            return !again.isEmpty();
        });
        assertEquals(Set.of(), o.unackedFinals());
    }

    @Test
    void requeueSendsTheSameAgainFirstInOrder() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        o.addLog(line(1, "a"));
        o.addLog(line(1, "b"));
        List<Outbox.Message> sent = take(o);
        o.addLog(line(1, "c"));
        o.requeue();
        List<Outbox.Message> again = take(o);
        List<String> texts = new ArrayList<>();
        List<Long> seqs = new ArrayList<>();
        again.forEach(m -> m.lines.forEach(l -> {
            texts.add(l.text);
            seqs.add(l.seq);
        }));
        assertEquals(List.of("a", "b", "c"), texts);
        assertEquals(List.of(1L, 2L, 3L), seqs, "a line sent again keeps its seq");
        assertFalse(again.get(0).id == sent.get(0).id, "a new message id on the new connection");
    }

    @Test
    void refusedLogsAndReportsAreSentAgainAfterAPause() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        o.addLog(line(1, "a"));
        Outbox.Message m = take(o).get(0);
        o.ack(m.id, ack(false));
        assertEquals(0, take(o).size(), "sent again at once: the server said it cannot take it now");
        Support.waitFor("the refused lines again", () -> {
            List<Outbox.Message> again = take(o);
            if (again.isEmpty()) {
                return false;
            }
            assertEquals(1L, again.get(0).lines.get(0).seq);
            return true;
        });
    }

    @Test
    void aRefusedMapFailsItsCaller() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        Outbox.MapChunk c = new Outbox.MapChunk(1, 1, "n", "t1/1", 0);
        c.payloads.add("1");
        c.payloads.add("2");
        o.addMaps(List.of(c));
        Outbox.Message m = take(o).get(0);
        o.ack(m.id, ack(false));
        assertTrue(c.await(0));
        assertEquals("the server refused subtasks 0..1: the database is away", c.error().getMessage());
        assertEquals(0, take(o).size(), "a refused map is final");
    }

    @Test
    void abandonedMapsAreNotSentAgain() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        Outbox.MapChunk c = new Outbox.MapChunk(1, 1, "n", "t1/1", 0);
        o.addMaps(List.of(c));
        take(o);
        o.abandon(List.of(c));
        o.requeue();
        assertEquals(0, take(o).size());
    }

    @Test
    void droppedLinesAreCountedAndSent() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 3, 100);
        for (int i = 0; i < 5; i++) {
            o.addLog(line(7, "l" + i));
        }
        Outbox.Message m = take(o).get(0);
        assertEquals(3, m.lines.size());
        assertEquals("l2", m.lines.get(0).text, "the oldest lines go first");
        assertEquals("{\"7\":2}", m.body().get("dropped").toString());
        assertTrue(o.pending());
    }

    @Test
    void reportsWaitForRoomAndAreNeverDropped() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 2);
        o.addReport(report(1, "RUNNING"));
        o.addReport(report(2, "RUNNING"));
        CountDownLatch added = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                o.addReport(report(3, "RUNNING"));
                added.countDown();
            } catch (Outbox.Closed e) {
                throw new AssertionError(e);
            }
        });
        t.start();
        assertFalse(added.await(200, java.util.concurrent.TimeUnit.MILLISECONDS), "a third report fit a queue of two");
        Outbox.Message m = take(o).get(0);
        assertTrue(added.await(Support.FAILSAFE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
        assertEquals(2, m.reports.size());
        o.ack(m.id, ack(true));
        assertEquals(1, take(o).get(0).reports.size());
    }

    @Test
    void aPageRequestGoesFirstAndGetsItsPage() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        o.addLog(line(1, "a"));
        Outbox.PageRequest p = new Outbox.PageRequest(1, 2, 0, 1000);
        o.addPage(p);
        List<Outbox.Message> ms = take(o);
        assertEquals("results", ms.get(0).type);
        assertEquals("{\"instanceId\":1,\"taskId\":2,\"after\":0,\"limit\":1000}", ms.get(0).body().toString());
        ObjectNode a = ack(true);
        a.putArray("results").addObject().put("taskId", 9).put("name", "square").put("success", true).put("result", "81");
        a.put("more", true);
        o.ack(ms.get(0).id, a);
        assertTrue(p.await(0));
        assertNull(p.error());
        assertEquals(9, p.results().get(0).getTaskId());
        assertTrue(p.more());
    }

    @Test
    void aPageRequestInFlightIsSentAgainButNotOwed() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        Outbox.PageRequest p = new Outbox.PageRequest(1, 2, 1000, 1000);
        o.addPage(p);
        take(o);
        assertFalse(o.pending(), "a request for results is not owed to the server");
        o.requeue();
        Outbox.Message again = take(o).get(0);
        assertEquals(1000, again.page.after);
    }

    @Test
    void closeFailsQueuedMapsAndPages() throws Exception {
        Outbox o = new Outbox(Support.QUIET, 100, 100);
        Outbox.MapChunk c = new Outbox.MapChunk(1, 1, "n", "t1/1", 0);
        Outbox.PageRequest p = new Outbox.PageRequest(1, 2, 0, 1000);
        o.addMaps(List.of(c));
        o.addPage(p);
        o.close();
        assertTrue(c.await(0));
        assertNotNull(c.error());
        assertTrue(p.await(0));
        assertNotNull(p.error());
    }
}
