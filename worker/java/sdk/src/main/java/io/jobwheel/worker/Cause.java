package io.jobwheel.worker;

import java.time.Duration;

/** Why a task was cancelled. */
abstract class Cause {
    abstract String describe();

    @Override
    public String toString() {
        return describe();
    }

    /** The server stopped the task (§10): reported STOPPED. */
    static final class Stopped extends Cause {
        final String reason;

        Stopped(String reason) {
            this.reason = reason == null ? "" : reason;
        }

        @Override
        String describe() {
            return reason.isEmpty() ? "stopped by the server" : "stopped: " + reason;
        }
    }

    /** The task's deadline passed (§8.4): reported FAILED, reason TIMEOUT. */
    static final class TimedOut extends Cause {
        final Duration after;

        TimedOut(Duration after) {
            this.after = after;
        }

        @Override
        String describe() {
            return "timed out after " + seconds(after);
        }
    }

    /** The worker is stopping (§13.3): reported FAILED, so the server may retry it. */
    static final class ShuttingDown extends Cause {
        @Override
        String describe() {
            return "worker shutting down";
        }
    }

    /** 1.5s, 250ms: short and exact enough for people. */
    static String seconds(Duration d) {
        long ms = Math.max(d.toMillis(), 0);
        if (ms >= 1000) {
            String s = String.format(java.util.Locale.ROOT, "%.3f", ms / 1000.0);
            s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
            return s + "s";
        }
        return ms + "ms";
    }
}
