package io.jobwheel.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the unit tests share: a worker without a server, tasks and
 * dispatches as the server sends them, and a Recorder that takes what the
 * worker queues for the server and answers it. The whole protocol, against
 * a server, is the conformance kit's (worker/conformance), which make test
 * runs against the SDK.
 */
final class Support {
    private Support() {
    }

    /** The copy of every task line on the test's standard error is noise here: kept off (held, so it stays off). */
    static final java.util.logging.Logger TASK_LINES = java.util.logging.Logger.getLogger("io.jobwheel.worker.task");

    static {
        TASK_LINES.setLevel(java.util.logging.Level.OFF);
    }

    /** Bounds every wait: a failsafe against hangs, never a timing assertion. */
    static final Duration FAILSAFE = Duration.ofSeconds(30);

    static final System.Logger QUIET = new System.Logger() {
        @Override
        public String getName() {
            return "quiet";
        }

        @Override
        public boolean isLoggable(Level level) {
            return false;
        }

        @Override
        public void log(Level level, java.util.ResourceBundle bundle, String msg, Throwable thrown) {
        }

        @Override
        public void log(Level level, java.util.ResourceBundle bundle, String format, Object... params) {
        }
    };

    static WorkerConfig.Builder config() {
        return WorkerConfig.builder().app("orders").secret("s3cret").servers("http://127.0.0.1:7700").slots(8)
                .logger(QUIET).shutdownTimeout(Duration.ofSeconds(5)).abandonAfter(Duration.ofMillis(300))
                .mapTimeout(Duration.ofSeconds(10));
    }

    /** A started worker (no connection) with the processors register adds. */
    static Worker worker(WorkerConfig.Builder b, Consumer<Worker> register) {
        Worker w = new Worker(b.build());
        register.accept(w);
        w.startForTest();
        return w;
    }

    static ObjectNode task(long id, String processor) {
        ObjectNode t = Protocol.JSON.createObjectNode();
        t.put("taskId", id);
        t.put("instanceId", 100 + id);
        t.put("jobId", 1);
        t.put("attempt", 1);
        t.put("kind", "ROOT");
        t.put("name", "ROOT");
        t.put("executionMode", "STANDALONE");
        t.put("processorType", "GO");
        t.put("processor", processor);
        return t;
    }

    static ObjectNode dispatch(String app, long epoch, ObjectNode... tasks) {
        ObjectNode d = Protocol.JSON.createObjectNode();
        d.put("app", app);
        d.put("epoch", epoch);
        ArrayNode a = d.putArray("tasks");
        for (ObjectNode t : tasks) {
            a.add(t);
        }
        return d;
    }

    static ObjectNode dispatch(ObjectNode... tasks) {
        return dispatch("orders", 1, tasks);
    }

    static List<Long> ids(JsonNode arr) {
        List<Long> out = new ArrayList<>();
        arr.forEach(n -> out.add(n.isObject() ? n.get("taskId").asLong() : n.asLong()));
        return out;
    }

    static void waitFor(String what, BooleanSupplier cond) {
        long end = System.nanoTime() + FAILSAFE.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("waited " + FAILSAFE + " for " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** Takes what the worker queues for the server, acking it. */
    static final class Recorder {
        final Worker w;
        long n;
        final List<ObjectNode> reports = new ArrayList<>();
        final List<ObjectNode> lines = new ArrayList<>();
        final List<ObjectNode> maps = new ArrayList<>();
        final List<ObjectNode> pageRequests = new ArrayList<>();
        /** Answers a results request (its body) with an ack body; null leaves it unanswered. */
        Function<ObjectNode, ObjectNode> pages = r -> null;
        /** Answers a map (its body) with an ack body; null leaves it unanswered. */
        Function<ObjectNode, ObjectNode> mapAcks = m -> ok();

        Recorder(Worker w) {
            this.w = w;
        }

        static ObjectNode ok() {
            ObjectNode a = Protocol.JSON.createObjectNode();
            a.put("ok", true);
            return a;
        }

        synchronized void drain() {
            for (Outbox.Message m : w.outbox().take(() -> ++n)) {
                ObjectNode body = m.body();
                ObjectNode ack = ok();
                switch (m.type) {
                    case Protocol.REPORT:
                        body.get("items").forEach(i -> reports.add((ObjectNode) i));
                        break;
                    case Protocol.LOGS:
                        body.get("lines").forEach(l -> lines.add((ObjectNode) l));
                        break;
                    case Protocol.MAP:
                        maps.add(body);
                        ack = mapAcks.apply(body);
                        break;
                    case Protocol.RESULTS:
                        pageRequests.add(body);
                        ack = pages.apply(body);
                        break;
                    default:
                        throw new AssertionError("unexpected " + m.type);
                }
                if (ack != null) {
                    w.outbox().ack(m.id, ack);
                }
            }
        }

        synchronized List<String> statuses(long taskId) {
            List<String> out = new ArrayList<>();
            for (ObjectNode r : reports) {
                if (r.get("taskId").asLong() == taskId) {
                    out.add(r.get("status").asText());
                }
            }
            return out;
        }

        synchronized ObjectNode finalOf(long taskId) {
            for (ObjectNode r : reports) {
                if (r.get("taskId").asLong() == taskId && !"RUNNING".equals(r.get("status").asText())) {
                    return r;
                }
            }
            return null;
        }

        /** Waits for the task's final report. */
        ObjectNode fin(long taskId) {
            ObjectNode[] got = new ObjectNode[1];
            waitFor("the final report of task " + taskId, () -> {
                drain();
                got[0] = finalOf(taskId);
                return got[0] != null;
            });
            return got[0];
        }

        synchronized List<String> texts(long instanceId) {
            List<String> out = new ArrayList<>();
            for (ObjectNode l : lines) {
                if (l.get("instanceId").asLong() == instanceId) {
                    out.add(l.get("text").asText());
                }
            }
            return out;
        }
    }
}
