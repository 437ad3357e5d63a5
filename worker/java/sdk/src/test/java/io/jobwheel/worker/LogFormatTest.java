package io.jobwheel.worker;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogFormatTest {
    @Test
    void placeholdersAsInSlf4j() {
        assertEquals("a 1 b x", LogFormat.format("a {} b {}", 1, "x"));
        assertEquals("no args {}", LogFormat.format("no args {}"));
        assertEquals("one 1 {}", LogFormat.format("one {} {}", 1));
        assertEquals("literal {} then 2", LogFormat.format("literal \\{} then {}", 2));
        assertEquals("arrays [1, 2] [a]", LogFormat.format("arrays {} {}", new int[]{1, 2}, new String[]{"a"}));
        assertEquals("null null", LogFormat.format("{} {}", null, null));
        assertEquals("null", LogFormat.format(null, 1));
    }

    @Test
    void aLeftOverThrowableAddsItsStackTrace() {
        String s = LogFormat.format("failed {}", "shop", new IllegalStateException("boom"));
        assertTrue(s.startsWith("failed shop\njava.lang.IllegalStateException: boom\n\tat "), s);
        assertEquals("failed java.lang.IllegalStateException: boom", LogFormat.format("failed {}", new IllegalStateException("boom")));
    }
}
