package io.jobwheel.worker;

import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** start() and close(), as a Spring bean's init and destroy methods call them. */
class LifecycleTest {
    /** A loopback port nothing listens on: connecting is refused at once. */
    private static int deadPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void startReturnsAtOnceAndCloseStopsTheWorker() throws Exception {
        Worker w = new Worker(Support.config().servers("http://127.0.0.1:" + deadPort()).build());
        w.register("p", ctx -> new ProcessResult(true, ""));
        w.start();
        assertThrows(IllegalStateException.class, w::start, "a worker starts once");
        assertThrows(IllegalStateException.class, w::run, "a worker runs once");
        assertFalse(w.isConnected());
        assertFalse(w.awaitTermination(Duration.ZERO), "it keeps trying to connect until closed");
        w.close();
        assertTrue(w.awaitTermination(Duration.ZERO), "close returned before the worker stopped");
        assertNull(w.getFailure());
        w.close(); // twice is harmless
    }

    @Test
    void stopBeforeRunMakesRunReturn() {
        Worker w = new Worker(Support.config().build());
        w.stop();
        w.run();
        assertNull(w.getFailure());
        assertEquals(null, w.getJobChanges(), "no connect, no job changes");
    }

    @Test
    void closeWithoutStartIsHarmless() {
        new Worker(Support.config().build()).close();
    }
}
