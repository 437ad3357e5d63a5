package io.jobwheel.examples;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * One line per record on standard error, at the level asked (the SDK logs
 * through System.Logger, which is java.util.logging unless the application
 * routes it elsewhere, e.g. to SLF4J).
 */
final class Logging {
    private Logging() {
    }

    static void setUp(String level) {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        Level l;
        try {
            l = Level.parse(level.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            l = Level.INFO;
        }
        Logger root = Logger.getLogger("");
        for (java.util.logging.Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler h = new ConsoleHandler();
        h.setFormatter(new SimpleFormatter());
        h.setLevel(l);
        root.addHandler(h);
        root.setLevel(l);
        // The JDK's own HTTP client logs at FINE too: keep it quiet.
        Logger.getLogger("jdk.internal").setLevel(Level.INFO);
        Logger.getLogger("sun.net").setLevel(Level.INFO);
    }

    /** Sets one logger's level, e.g. the copy of every task line to WARNING. */
    static void level(String logger, Level level) {
        Logger.getLogger(logger).setLevel(level);
    }
}
