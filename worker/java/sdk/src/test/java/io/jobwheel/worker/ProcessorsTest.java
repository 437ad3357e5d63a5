package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static io.jobwheel.worker.Support.config;
import static io.jobwheel.worker.Support.dispatch;
import static io.jobwheel.worker.Support.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PowerJob's processor shapes on the worker: broadcast, map, map-reduce, results in pages. */
class ProcessorsTest {
    private Worker w;

    @AfterEach
    void stop() {
        if (w != null) {
            w.stopForTest();
        }
    }

    static ObjectNode kind(ObjectNode t, String mode, String kind, String name) {
        t.put("executionMode", mode);
        t.put("kind", kind);
        t.put("name", name);
        return t;
    }

    static ArrayNode results(ObjectNode t, Object... rs) {
        ArrayNode a = t.putArray("results");
        for (int i = 0; i < rs.length; i += 3) {
            a.addObject().put("taskId", i / 3 + 1).put("name", (String) rs[i]).put("success", (Boolean) rs[i + 1])
                    .put("result", (String) rs[i + 2]);
        }
        return a;
    }

    static class Broadcast implements BroadcastProcessor {
        @Override
        public ProcessResult preProcess(TaskContext context) {
            context.getOmsLogger().info("pre");
            return new ProcessResult(true, "prepared");
        }

        @Override
        public ProcessResult process(TaskContext context) {
            return new ProcessResult(true, "shard " + context.getShardIndex() + "/" + context.getShardTotal());
        }
    }

    @Test
    void broadcastPreProcessAndDefaultPostProcess() {
        w = Support.worker(config(), w -> w.register("b", new Broadcast()));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode shard = kind(task(2, "b"), "BROADCAST", "BROADCAST", "BROADCAST 1/3");
        shard.put("shardIndex", 1);
        shard.put("shardTotal", 3);
        ObjectNode post = kind(task(3, "b"), "BROADCAST", "POST", "POST");
        results(post, "BROADCAST 0/3", true, "a", "BROADCAST 1/3", false, "b", "BROADCAST 2/3", true, "c");
        w.accept(dispatch(kind(task(1, "b"), "BROADCAST", "PRE", "PRE"), shard, post));
        assertEquals("prepared", rec.fin(1).get("result").asText());
        assertEquals("shard 1/3", rec.fin(2).get("result").asText());
        ObjectNode p = rec.fin(3);
        assertEquals("FAILED", p.get("status").asText(), "PowerJob's default post-process fails when a shard failed");
        assertEquals("succeed:2, failed:1", p.get("result").asText());
    }

    @Test
    void aPlainProcessorInABroadcastGetsDefaultPreAndPost() {
        w = Support.worker(config(), w -> w.register("p", ctx -> new ProcessResult(true, "")));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode post = kind(task(2, "p"), "BROADCAST", "POST", "POST");
        results(post, "BROADCAST 0/2", true, "", "BROADCAST 1/2", false, "x");
        w.accept(dispatch(kind(task(1, "p"), "BROADCAST", "PRE", "PRE"), post));
        assertEquals("no pre-process", rec.fin(1).get("result").asText());
        assertEquals("no post-process; 1 of 2 tasks succeeded", rec.fin(2).get("result").asText());
    }

    /** A PowerJob-style map-reduce whose subtasks are objects of a class of this package. */
    static class Squares implements MapReduceProcessor {
        static class Chunk {
            int from;
            int to;

            Chunk() {
            }

            Chunk(int from, int to) {
                this.from = from;
                this.to = to;
            }
        }

        @Override
        public ProcessResult process(TaskContext context) throws Exception {
            if (isRootTask()) {
                map(List.of(new Chunk(1, 2), new Chunk(3, 4)), "CHUNK");
                return new ProcessResult(true, "mapped");
            }
            Chunk c = (Chunk) context.getSubTask();
            int sum = 0;
            for (int i = c.from; i <= c.to; i++) {
                sum += i * i;
            }
            return new ProcessResult(true, Integer.toString(sum));
        }

        @Override
        public ProcessResult reduce(TaskContext context, List<TaskResult> taskResults) {
            int total = 0;
            for (TaskResult r : taskResults) {
                if ("CHUNK".equals(r.getTaskName()) && r.isSuccess()) {
                    total += Integer.parseInt(r.getResult());
                }
            }
            return new ProcessResult(true, "sum " + total);
        }
    }

    @Test
    void mapReduceWithSubtaskObjects() {
        w = Support.worker(config(), w -> w.register("sq", new Squares()));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(kind(task(1, "sq"), "MAP_REDUCE", "ROOT", "ROOT")));
        assertEquals("mapped", rec.fin(1).get("result").asText());
        ObjectNode map = rec.maps.get(0);
        assertEquals("CHUNK", map.get("name").asText());
        assertEquals("t1/1", map.get("key").asText());
        assertEquals(1, map.get("parentTaskId").asLong());
        List<String> payloads = new ArrayList<>();
        map.get("payloads").forEach(p -> payloads.add(p.asText()));
        assertEquals("{\"@javaClass\":\"io.jobwheel.worker.ProcessorsTest$Squares$Chunk\",\"value\":{\"from\":1,\"to\":2}}", payloads.get(0));
        // The subtasks, as the server dispatches them, then the reduce.
        ObjectNode s1 = kind(task(2, "sq"), "MAP_REDUCE", "MAP", "CHUNK");
        s1.put("payload", payloads.get(0));
        ObjectNode s2 = kind(task(3, "sq"), "MAP_REDUCE", "MAP", "CHUNK");
        s2.put("payload", payloads.get(1));
        w.accept(dispatch(s1, s2));
        assertEquals("5", rec.fin(2).get("result").asText());
        assertEquals("25", rec.fin(3).get("result").asText());
        ObjectNode red = kind(task(4, "sq"), "MAP_REDUCE", "REDUCE", "REDUCE");
        results(red, "ROOT", true, "mapped", "CHUNK", true, "5", "CHUNK", true, "25");
        w.accept(dispatch(red));
        assertEquals("sum 30", rec.fin(4).get("result").asText());
    }

    @Test
    void subtasksOfPlainValuesAndOfOtherPackages() throws Exception {
        assertEquals("3", TaskContext.encodeSubTask(3));
        assertEquals("\"a\"", TaskContext.encodeSubTask("a"));
        assertEquals("{\"k\":[1,2]}", TaskContext.encodeSubTask(Map.of("k", List.of(1, 2))));
        AtomicReference<Object> got = new AtomicReference<>();
        AtomicReference<Object> typed = new AtomicReference<>();
        AtomicReference<String> refused = new AtomicReference<>();
        w = Support.worker(config(), w -> w.register("p", ctx -> {
            if (ctx.getPayload().contains("@javaClass")) {
                try {
                    ctx.getSubTask();
                } catch (IllegalStateException e) {
                    refused.set(e.getMessage());
                }
                typed.set(ctx.getSubTask(java.awt.Point.class));
            } else {
                got.set(ctx.getSubTask());
            }
            return new ProcessResult(true, "");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode plain = kind(task(1, "p"), "MAP", "MAP", "n");
        plain.put("payload", "{\"a\":[1,\"x\"]}");
        ObjectNode foreign = kind(task(2, "p"), "MAP", "MAP", "n");
        foreign.put("payload", "{\"@javaClass\":\"java.awt.Point\",\"value\":{\"x\":1,\"y\":2}}");
        w.accept(dispatch(plain, foreign));
        rec.fin(1);
        rec.fin(2);
        assertEquals(Map.of("a", List.of(1, "x")), got.get());
        assertTrue(refused.get().contains("is not in the processor's package"), refused.get());
        assertEquals(new java.awt.Point(1, 2), typed.get(), "a caller naming the class gets it");
    }

    @Test
    void aResultBuiltWithPowerJobsSetters() {
        w = Support.worker(config(), w -> w.register("p", ctx -> {
            ProcessResult r = new ProcessResult();
            r.setSuccess(!"fail".equals(ctx.getJobParams()));
            r.setMsg("set " + ctx.getJobParams());
            return r;
        }));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode ok = task(1, "p");
        ok.put("jobParams", "ok");
        ObjectNode fail = task(2, "p");
        fail.put("jobParams", "fail");
        w.accept(dispatch(ok, fail));
        assertEquals("SUCCEEDED", rec.fin(1).get("status").asText());
        assertEquals("set ok", rec.fin(1).get("result").asText());
        assertEquals("FAILED", rec.fin(2).get("status").asText());
        assertEquals("set fail", rec.fin(2).get("result").asText());
        assertEquals("", new ProcessResult().getMsg());
        assertFalse(new ProcessResult().isSuccess(), "PowerJob's default: not a success");
    }

    @Test
    void reduceWithoutAMapReduceProcessorFails() {
        w = Support.worker(config(), w -> w.register("p", ctx -> new ProcessResult(true, "")));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(kind(task(1, "p"), "MAP_REDUCE", "REDUCE", "REDUCE")));
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertTrue(fin.get("result").asText().contains("cannot reduce"), fin.toString());
    }

    @Test
    void mapOutsideMapJobsSaysWhy() {
        w = Support.worker(config(), w -> w.register("p", ctx -> {
            ctx.map(List.of(1), "n");
            return new ProcessResult(true, "");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, "p")));
        assertTrue(rec.fin(1).get("result").asText().startsWith("map: only MAP and MAP_REDUCE jobs can emit subtasks"));
    }

    /** Maps from a thread it starts: only the processor's own thread may (JobHelper's context is inherited, map's is not). */
    static class MapsFromAnotherThread implements MapProcessor {
        @Override
        public ProcessResult process(TaskContext context) throws Exception {
            String[] err = new String[2];
            Thread t = new Thread(() -> {
                err[1] = "JobHelper there: " + (JobHelper.getContext() == context);
                try {
                    map(List.of(1), "n");
                } catch (MapException e) {
                    err[0] = e.getMessage();
                }
            });
            t.start();
            t.join();
            return new ProcessResult(false, err[0] + "; " + err[1]);
        }
    }

    @Test
    void mapFromAThreadTheProcessorStartsSaysWhy() {
        w = Support.worker(config(), w -> w.register(new MapsFromAnotherThread()));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(kind(task(1, MapsFromAnotherThread.class.getName()), "MAP", "ROOT", "ROOT")));
        assertEquals("map: no task runs on this thread; call map from the thread running process; JobHelper there: true",
                rec.fin(1).get("result").asText());
    }

    /** PowerJob code catching what its map throws, by PowerJob's name. */
    static class CatchesMapFailures implements MapProcessor {
        @Override
        public ProcessResult process(TaskContext context) throws Exception {
            try {
                map(List.of(1), "n");
            } catch (PowerJobCheckedException e) {
                return new ProcessResult(false, "caught: " + e.getMessage());
            }
            return new ProcessResult(true, "mapped");
        }
    }

    @Test
    void powerJobCodeCatchesMapFailuresByPowerJobsName() {
        w = Support.worker(config(), w -> w.register(new CatchesMapFailures()));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(task(1, CatchesMapFailures.class.getName())));
        assertTrue(rec.fin(1).get("result").asText().startsWith("caught: map: only MAP and MAP_REDUCE jobs can emit subtasks"),
                rec.fin(1).toString());
    }

    @Test
    void mapWaitsForTheServerAndFailsWhenItRefuses() {
        w = Support.worker(config(), w -> w.register("p", ctx -> {
            ctx.map(List.of(1, 2), "n");
            return new ProcessResult(true, "mapped");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        rec.mapAcks = m -> null; // held: the task must not end meanwhile
        w.accept(dispatch(kind(task(1, "p"), "MAP", "ROOT", "ROOT")));
        Support.waitFor("the map message", () -> {
            rec.drain();
            return !rec.maps.isEmpty();
        });
        rec.drain();
        assertEquals(null, rec.finalOf(1), "the task ended with its map unacknowledged");
        w.outbox().requeue(); // a new connection: sent again, then refused
        rec.mapAcks = m -> {
            ObjectNode a = Protocol.JSON.createObjectNode();
            a.put("ok", false);
            a.put("error", "task 1 is not running on this worker");
            return a;
        };
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertEquals("map: the server refused subtasks 0..1: task 1 is not running on this worker (none was stored)", fin.get("result").asText());
        assertEquals(rec.maps.get(0).get("key"), rec.maps.get(1).get("key"), "sent again under the same key");
    }

    @Test
    void aBigMapGoesInSeveralMessagesWithKeysOfTheirOwn() {
        w = Support.worker(config(), w -> w.register("p", ctx -> {
            List<Integer> many = new ArrayList<>();
            for (int i = 0; i < 2500; i++) {
                many.add(i);
            }
            ctx.map(many, "n");
            return new ProcessResult(true, "mapped");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        w.accept(dispatch(kind(task(1, "p"), "MAP", "ROOT", "ROOT")));
        rec.fin(1);
        assertEquals(3, rec.maps.size());
        assertEquals(List.of("t1/1", "t1/2", "t1/3"), List.of(rec.maps.get(0).get("key").asText(),
                rec.maps.get(1).get("key").asText(), rec.maps.get(2).get("key").asText()));
        assertEquals(1000, rec.maps.get(0).get("payloads").size());
        assertEquals(500, rec.maps.get(2).get("payloads").size());
    }

    private static ObjectNode page(ObjectNode req, int total) {
        long after = req.get("after").asLong();
        int limit = req.get("limit").asInt();
        ObjectNode a = Protocol.JSON.createObjectNode();
        a.put("ok", true);
        ArrayNode rs = a.putArray("results");
        long id = after + 1;
        for (; id <= total && rs.size() < limit; id++) {
            rs.addObject().put("taskId", id).put("name", "square").put("success", true).put("result", Long.toString(id));
        }
        a.put("more", id <= total);
        return a;
    }

    @Test
    void aReduceReadsPageAfterPageLazily() {
        AtomicReference<Long> pagesBefore = new AtomicReference<>();
        w = Support.worker(config(), w -> w.register("m", new MapReduceProcessor() {
            @Override
            public ProcessResult process(TaskContext context) {
                return new ProcessResult(true, "");
            }

            @Override
            public ProcessResult reduce(TaskContext context, List<TaskResult> taskResults) {
                Results r = (Results) taskResults;
                pagesBefore.set((long) r.getPagesRead());
                long sum = 0;
                for (TaskResult t : taskResults) {
                    sum += Long.parseLong(t.getResult());
                }
                return new ProcessResult(true, "sum " + sum + " of " + r.getResultCount() + " in " + r.getPagesRead() + " pages");
            }
        }));
        Support.Recorder rec = new Support.Recorder(w);
        rec.pages = req -> page(req, 2500);
        ObjectNode red = kind(task(1, "m"), "MAP_REDUCE", "REDUCE", "REDUCE");
        red.put("resultsPaged", true);
        red.put("resultCount", 2500);
        w.accept(dispatch(red));
        assertEquals("sum 3126250 of 2500 in 3 pages", rec.fin(1).get("result").asText());
        assertEquals(0L, pagesBefore.get(), "nothing was read before the loop");
        assertEquals(List.of(0L, 1000L, 2000L), List.of(rec.pageRequests.get(0).get("after").asLong(),
                rec.pageRequests.get(1).get("after").asLong(), rec.pageRequests.get(2).get("after").asLong()));
    }

    @Test
    void aRefusedPageFailsTheTaskEvenIfTheProcessorCatchesIt() {
        w = Support.worker(config(), w -> w.register("m", new MapReduceProcessor() {
            @Override
            public ProcessResult process(TaskContext context) {
                return new ProcessResult(true, "");
            }

            @Override
            public ProcessResult reduce(TaskContext context, List<TaskResult> taskResults) {
                try {
                    taskResults.size();
                } catch (ResultsException e) {
                    return new ProcessResult(true, "sum 0"); // swallowed: still a failure
                }
                return new ProcessResult(true, "read them");
            }
        }));
        Support.Recorder rec = new Support.Recorder(w);
        rec.pages = req -> {
            ObjectNode a = Protocol.JSON.createObjectNode();
            a.put("ok", false);
            a.put("code", "REFUSED");
            a.put("error", "task 1 is not running on this worker");
            return a;
        };
        ObjectNode red = kind(task(1, "m"), "MAP_REDUCE", "REDUCE", "REDUCE");
        red.put("resultsPaged", true);
        w.accept(dispatch(red));
        ObjectNode fin = rec.fin(1);
        assertEquals("FAILED", fin.get("status").asText());
        assertTrue(fin.get("result").asText().contains("the server refused to read results: task 1 is not running on this worker (the processor went on without them)"),
                fin.toString());
    }

    @Test
    void aStopWhileWaitingForAPage() {
        w = Support.worker(config(), w -> w.register("m", new MapReduceProcessor() {
            @Override
            public ProcessResult process(TaskContext context) {
                return new ProcessResult(true, "");
            }

            @Override
            public ProcessResult reduce(TaskContext context, List<TaskResult> taskResults) {
                return new ProcessResult(true, "read " + taskResults.size());
            }
        }));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode red = kind(task(1, "m"), "MAP_REDUCE", "REDUCE", "REDUCE");
        red.put("resultsPaged", true);
        w.accept(dispatch(red));
        Support.waitFor("the page request", () -> {
            rec.drain();
            return !rec.pageRequests.isEmpty();
        });
        ObjectNode stop = Protocol.JSON.createObjectNode();
        stop.put("instanceId", 101);
        w.stopTasks(stop);
        ObjectNode fin = rec.fin(1);
        assertEquals("STOPPED", fin.get("status").asText());
    }

    @Test
    void resultsInTheDispatchAreNotReadFromTheServer() {
        w = Support.worker(config(), w -> w.register("m", new MapReduceProcessor() {
            @Override
            public ProcessResult process(TaskContext context) {
                return new ProcessResult(true, "");
            }

            @Override
            public ProcessResult reduce(TaskContext context, List<TaskResult> taskResults) {
                assertFalse(((Results) taskResults).isPaged());
                return new ProcessResult(true, taskResults.size() + " " + taskResults.get(1).getResult());
            }
        }));
        Support.Recorder rec = new Support.Recorder(w);
        ObjectNode red = kind(task(1, "m"), "MAP_REDUCE", "REDUCE", "REDUCE");
        results(red, "ROOT", true, "r", "square", true, "4");
        w.accept(dispatch(red));
        assertEquals("2 4", rec.fin(1).get("result").asText());
        assertTrue(rec.pageRequests.isEmpty());
    }

    @Test
    void theMapTimeoutCountsFromTheLastProgress() {
        w = Support.worker(config().mapTimeout(Duration.ofMillis(300)), w -> w.register("p", ctx -> {
            ctx.map(List.of(1), "n");
            return new ProcessResult(true, "mapped");
        }));
        Support.Recorder rec = new Support.Recorder(w);
        rec.mapAcks = m -> null; // never stored
        w.accept(dispatch(kind(task(1, "p"), "MAP", "ROOT", "ROOT")));
        ObjectNode fin = rec.fin(1);
        assertTrue(fin.get("result").asText().startsWith("map: the server did not confirm storing the subtasks within 300ms"),
                fin.toString());
        assertInstanceOf(String.class, fin.get("result").asText());
    }
}
