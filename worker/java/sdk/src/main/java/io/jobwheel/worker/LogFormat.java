package io.jobwheel.worker;

import java.io.PrintWriter;
import java.io.StringWriter;

/** SLF4J-style message formatting for task lines, without SLF4J. */
final class LogFormat {
    private LogFormat() {
    }

    /**
     * Replaces each {@code {}} of pattern with the next argument (arrays
     * printed as arrays; {@code \{}} is a literal {@code {}}); a Throwable
     * left over as the last argument adds its stack trace on the next lines.
     */
    static String format(String pattern, Object... args) {
        String p = pattern == null ? "null" : pattern;
        if (args == null || args.length == 0) {
            return p;
        }
        StringBuilder b = new StringBuilder(p.length() + 16 * args.length);
        int used = 0;
        int i = 0;
        while (i < p.length()) {
            char c = p.charAt(i);
            if (c == '\\' && i + 2 < p.length() && p.charAt(i + 1) == '{' && p.charAt(i + 2) == '}') {
                b.append("{}");
                i += 3;
                continue;
            }
            if (c == '{' && i + 1 < p.length() && p.charAt(i + 1) == '}' && used < args.length) {
                b.append(toText(args[used++]));
                i += 2;
                continue;
            }
            b.append(c);
            i++;
        }
        if (used < args.length && args[args.length - 1] instanceof Throwable) {
            b.append('\n').append(stackTrace((Throwable) args[args.length - 1]));
        }
        return b.toString();
    }

    static String toText(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof Object[]) {
            return java.util.Arrays.deepToString((Object[]) o);
        }
        if (o.getClass().isArray()) {
            if (o instanceof int[]) {
                return java.util.Arrays.toString((int[]) o);
            }
            if (o instanceof long[]) {
                return java.util.Arrays.toString((long[]) o);
            }
            if (o instanceof byte[]) {
                return java.util.Arrays.toString((byte[]) o);
            }
            if (o instanceof double[]) {
                return java.util.Arrays.toString((double[]) o);
            }
            if (o instanceof boolean[]) {
                return java.util.Arrays.toString((boolean[]) o);
            }
            if (o instanceof char[]) {
                return java.util.Arrays.toString((char[]) o);
            }
            if (o instanceof float[]) {
                return java.util.Arrays.toString((float[]) o);
            }
            if (o instanceof short[]) {
                return java.util.Arrays.toString((short[]) o);
            }
        }
        try {
            return String.valueOf(o);
        } catch (RuntimeException e) {
            return "[" + o.getClass().getName() + ".toString() failed: " + e + "]";
        }
    }

    static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        String s = w.toString();
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }
}
