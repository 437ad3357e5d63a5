package io.jobwheel.worker;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads processors run on: a virtual thread per task where the JVM has
 * them (Java 21+; found at run time, the SDK is built for 17), else a pool of
 * at most {@code slots} platform threads, made as needed and let go after a
 * minute idle. The worker never runs more tasks than its slots (it rejects
 * the rest), so the pool never queues for long.
 */
final class Slots {
    private Slots() {
    }

    /** Whether Thread.ofVirtual() works here (it exists but throws on 19–20 without preview). */
    static boolean virtualThreadsAvailable() {
        return virtualFactory("probe-") != null;
    }

    /** A factory of virtual threads, or null where the JVM has none. */
    static ThreadFactory virtualFactory(String prefix) {
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            Class<?> b = Class.forName("java.lang.Thread$Builder");
            builder = b.getMethod("name", String.class, long.class).invoke(builder, prefix, 1L);
            return (ThreadFactory) b.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * The executor for a worker of slots slots; virtual: true, false, or null
     * for "where available". Returns it and says which in describe.
     */
    static ExecutorService executor(int slots, Boolean virtual, StringBuilder describe) {
        if (!Boolean.FALSE.equals(virtual)) {
            ThreadFactory f = virtualFactory("jobwheel-task-");
            if (f != null) {
                try {
                    Method m = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
                    ExecutorService ex = (ExecutorService) m.invoke(null, f);
                    describe.append("a virtual thread per task");
                    return ex;
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // fall through to the pool
                }
            }
        }
        AtomicLong n = new AtomicLong();
        ThreadFactory platform = r -> {
            Thread t = new Thread(r, "jobwheel-task-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(slots, slots, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), platform);
        pool.allowCoreThreadTimeOut(true);
        describe.append("a pool of up to ").append(slots).append(" threads (Java ").append(Runtime.version().feature())
                .append(" has no virtual threads)");
        return pool;
    }
}
