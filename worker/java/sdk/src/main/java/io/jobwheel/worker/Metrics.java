package io.jobwheel.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The figures heartbeats carry (docs/protocol.md §7.1); unknown ones are 0. */
final class Metrics {
    private Metrics() {
    }

    static ObjectNode read(Path workDir) {
        ObjectNode m = Protocol.JSON.createObjectNode();
        m.put("cpuCores", Runtime.getRuntime().availableProcessors());
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        m.put("load1", load < 0 ? 0 : Math.round(load * 100) / 100.0);
        m.put("freeMemoryMB", availableMemoryMB());
        long disk = 0;
        try {
            disk = Files.getFileStore(workDir).getUsableSpace() >> 20;
        } catch (IOException | RuntimeException e) {
            // unknown: 0
        }
        m.put("freeDiskMB", disk);
        return m;
    }

    /** Linux's MemAvailable: memory available without swapping. */
    static long availableMemoryMB() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/meminfo"));
            for (String l : lines) {
                if (l.startsWith("MemAvailable:")) {
                    String[] f = l.trim().split("\\s+");
                    return Long.parseLong(f[1]) / 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: unknown
        }
        return 0;
    }
}
