package io.jobwheel.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The jobwheel worker wire protocol, version 1: names, limits, frames
 * (docs/protocol.md; Go's worker/protocol/protocol.go is the reference).
 * Every message is one JSON text frame {@code {"id", "re", "type", "body"}}.
 */
final class Protocol {
    private Protocol() {
    }

    static final String VERSION = "1";

    /** A frame in either direction, in bytes. */
    static final int MAX_FRAME_BYTES = 4 << 20;
    /** One map subtask's payload. */
    static final int MAX_PAYLOAD_BYTES = 64 << 10;
    /** A task's result; longer results are cut. */
    static final int MAX_RESULT_BYTES = 64 << 10;
    /** One log line's text; longer lines are cut. */
    static final int MAX_LOG_LINE_BYTES = 16 << 10;
    /** Items of one report, lines of one logs message, payloads of one map. */
    static final int MAX_BATCH = 1000;
    /** Heartbeat intervals of silence after which a worker is lost. */
    static final int LOST_AFTER_BEATS = 3;

    static final String DISCOVER_PATH = "/worker/discover";
    static final String CONNECT_PATH = "/worker/connect";

    static final String HELLO = "hello";
    static final String WELCOME = "welcome";
    static final String ERROR = "error";
    static final String HEARTBEAT = "heartbeat";
    static final String DISPATCH = "dispatch";
    static final String STOP = "stop";
    static final String REPORT = "report";
    static final String LOGS = "logs";
    static final String MAP = "map";
    static final String REDIRECT = "redirect";
    static final String RESULTS = "results";
    static final String ACK = "ack";

    static final Set<String> TYPES = Set.of(HELLO, WELCOME, ERROR, HEARTBEAT, DISPATCH, STOP, REPORT, LOGS, MAP,
            REDIRECT, RESULTS, ACK);

    /**
     * results.paged: a POST or REDUCE task dispatched with resultsPaged reads
     * its results in pages (a results frame, §11.1) instead of getting them
     * all inside the dispatch.
     */
    static final String FEATURE_RESULTS_PAGED = "results.paged";

    /**
     * start.at: a task may come with startAt, a time before which it must
     * not start; the worker holds it till then (§8.6), and a stop may say
     * unstarted: take back only the named tasks that have not started.
     */
    static final String FEATURE_START_AT = "start.at";

    static final String CODE_AUTH = "AUTH";
    static final String CODE_NOT_OWNER = "NOT_OWNER";
    static final String CODE_BAD_FRAME = "BAD_FRAME";
    static final String CODE_PROTOCOL = "PROTOCOL";
    static final String CODE_INTERNAL = "INTERNAL";
    /** A dispatch rejection's code when the worker had no free slot. */
    static final String REJECT_FULL = "FULL";

    static final String KIND_ROOT = "ROOT";
    static final String KIND_PRE = "PRE";
    static final String KIND_BROADCAST = "BROADCAST";
    static final String KIND_POST = "POST";
    static final String KIND_MAP = "MAP";
    static final String KIND_REDUCE = "REDUCE";
    static final Set<String> KINDS = Set.of(KIND_ROOT, KIND_PRE, KIND_BROADCAST, KIND_POST, KIND_MAP, KIND_REDUCE);

    static final String RUNNING = "RUNNING";
    static final String SUCCEEDED = "SUCCEEDED";
    static final String FAILED = "FAILED";
    static final String STOPPED = "STOPPED";
    static final String REASON_TIMEOUT = "TIMEOUT";
    /** A FAILED report's reason for a task given back unstarted: the server runs it elsewhere, not a failure. */
    static final String REASON_HANDED_BACK = "HANDED_BACK";

    /** Shared, thread-safe once configured. */
    static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** A frame that cannot be used: answered with error BAD_FRAME. */
    static final class BadFrame extends Exception {
        BadFrame(String message) {
            super(message);
        }
    }

    /** A frame over MAX_FRAME_BYTES: it must not be sent. */
    static final class FrameTooLarge extends Exception {
        FrameTooLarge(String message) {
            super(message);
        }
    }

    /** A decoded frame; body is never null. */
    static final class Frame {
        final long id;
        final long re;
        final String type;
        final ObjectNode body;

        Frame(long id, long re, String type, ObjectNode body) {
            this.id = id;
            this.re = re;
            this.type = type;
            this.body = body;
        }
    }

    /** Encodes a frame; ids of 0 are left out. */
    static String encode(String type, JsonNode body, long id, long re) throws FrameTooLarge {
        ObjectNode f = JSON.createObjectNode();
        if (id > 0) {
            f.put("id", id);
        }
        if (re > 0) {
            f.put("re", re);
        }
        f.put("type", type);
        f.set("body", body);
        String text;
        try {
            text = JSON.writeValueAsString(f);
        } catch (IOException e) {
            throw new IllegalStateException("encoding a " + type + " frame: " + e.getMessage(), e);
        }
        int n = utf8Length(text);
        if (n > MAX_FRAME_BYTES) {
            throw new FrameTooLarge(type + " frame of " + n + " bytes is over the " + MAX_FRAME_BYTES + "-byte limit");
        }
        return text;
    }

    /**
     * Compact JSON of any value Jackson can write. (Debian's jackson-databind
     * declares IOException on writeValueAsString too.)
     */
    static String dumps(Object value) throws IOException {
        return JSON.writeValueAsString(value);
    }

    /**
     * Decodes and checks a frame the worker received; unknown fields are
     * ignored (§15).
     */
    static Frame decode(String text) throws BadFrame {
        if (text.length() > MAX_FRAME_BYTES || utf8Length(text) > MAX_FRAME_BYTES) {
            throw new BadFrame("a frame over " + MAX_FRAME_BYTES + " bytes");
        }
        JsonNode obj;
        try {
            obj = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new BadFrame("not a JSON frame: " + e.getOriginalMessage());
        }
        check(obj != null && obj.isObject(), "not a JSON object");
        JsonNode t = obj.get("type");
        check(t != null && t.isTextual(), "no type");
        String type = t.asText();
        check(TYPES.contains(type), "unknown type \"" + type + "\"");
        long id = idField(obj, "id");
        long re = idField(obj, "re");
        JsonNode b = obj.get("body");
        ObjectNode body;
        if (b == null || b.isNull()) {
            body = JSON.createObjectNode();
        } else if (b.isObject()) {
            body = (ObjectNode) b;
        } else {
            throw new BadFrame(type + " body is not an object");
        }
        try {
            validate(type, body);
        } catch (BadFrame e) {
            throw new BadFrame(type + ": " + e.getMessage());
        }
        return new Frame(id, re, type, body);
    }

    private static long idField(JsonNode obj, String name) throws BadFrame {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return 0;
        }
        check(isInt(v) && v.asLong() >= 0, "id and re must be integers of at least 0");
        return v.asLong();
    }

    static void check(boolean cond, String what) throws BadFrame {
        if (!cond) {
            throw new BadFrame(what);
        }
    }

    static boolean isInt(JsonNode v) {
        return v.isIntegralNumber() && v.canConvertToLong();
    }

    private static boolean absent(JsonNode v) {
        return v == null || v.isNull();
    }

    private static void ints(JsonNode body, String... names) throws BadFrame {
        for (String n : names) {
            JsonNode v = body.get(n);
            check(absent(v) || isInt(v), n + " must be an integer");
        }
    }

    private static void strs(JsonNode body, String... names) throws BadFrame {
        for (String n : names) {
            JsonNode v = body.get(n);
            check(absent(v) || v.isTextual(), n + " must be a string");
        }
    }

    private static void bools(JsonNode body, String... names) throws BadFrame {
        for (String n : names) {
            JsonNode v = body.get(n);
            check(absent(v) || v.isBoolean(), n + " must be a boolean");
        }
    }

    private static void validateTask(JsonNode t) throws BadFrame {
        check(t.isObject(), "a task must be an object");
        ints(t, "taskId", "instanceId", "jobId", "attempt", "workflowRunId", "resultCount", "shardIndex", "shardTotal");
        bools(t, "resultsPaged");
        strs(t, "kind", "name", "executionMode", "processorType", "processor", "jobParams", "params", "payload",
                "deadline", "startAt", "workflowNode");
        for (String name : new String[]{"deadline", "startAt"}) {
            JsonNode d = t.get(name);
            if (!absent(d) && !d.asText().isEmpty()) {
                try {
                    parseTime(d.asText());
                } catch (DateTimeParseException e) {
                    throw new BadFrame("task " + t.path("taskId").asLong() + ": " + name + ": \"" + d.asText()
                            + "\" is not an RFC 3339 time");
                }
            }
        }
        JsonNode wc = t.get("workflowContext");
        check(absent(wc) || wc.isObject(), "workflowContext must be an object");
        JsonNode up = t.get("upstream");
        check(absent(up) || up.isObject(), "upstream must be an object of strings");
        if (!absent(up)) {
            for (Iterator<JsonNode> it = up.elements(); it.hasNext(); ) {
                check(it.next().isTextual(), "upstream must be an object of strings");
            }
        }
        validateResults(t.get("results"));
    }

    private static void validateResults(JsonNode results) throws BadFrame {
        if (absent(results)) {
            return;
        }
        check(results.isArray(), "results must be a list of objects");
        for (JsonNode r : results) {
            check(r.isObject(), "results must be a list of objects");
            ints(r, "taskId");
            strs(r, "name", "result");
            JsonNode s = r.get("success");
            check(absent(s) || s.isBoolean(), "results: success must be a boolean");
        }
    }

    private static void validate(String type, ObjectNode body) throws BadFrame {
        switch (type) {
            case WELCOME: {
                ints(body, "epoch", "heartbeatMs");
                strs(body, "serverId");
                JsonNode v = body.get("servers");
                check(absent(v) || v.isArray(), "servers must be a list of strings");
                if (!absent(v)) {
                    for (JsonNode s : v) {
                        check(s.isTextual(), "servers must be a list of strings");
                    }
                }
                JsonNode changes = body.get("jobChanges");
                check(absent(changes) || changes.isArray(), "jobChanges must be a list");
                if (!absent(changes)) {
                    int i = 0;
                    for (JsonNode c : changes) {
                        check(c.isObject(), "jobChanges[" + i + "] must be an object");
                        for (String n : new String[]{"name", "action", "error"}) {
                            check(absent(c.get(n)) || c.get(n).isTextual(), "jobChanges[" + i + "]." + n + " must be a string");
                        }
                        JsonNode f = c.get("fields");
                        check(absent(f) || f.isArray(), "jobChanges[" + i + "].fields must be a list of strings");
                        if (!absent(f)) {
                            for (JsonNode s : f) {
                                check(s.isTextual(), "jobChanges[" + i + "].fields must be a list of strings");
                            }
                        }
                        i++;
                    }
                }
                break;
            }
            case DISPATCH: {
                ints(body, "epoch");
                strs(body, "app");
                JsonNode tasks = body.get("tasks");
                check(absent(tasks) || tasks.isArray(), "tasks must be a list");
                if (!absent(tasks)) {
                    for (JsonNode t : tasks) {
                        validateTask(t);
                    }
                }
                break;
            }
            case STOP: {
                ints(body, "instanceId");
                strs(body, "reason");
                bools(body, "unstarted");
                JsonNode ids = body.get("taskIds");
                check(absent(ids) || ids.isArray(), "taskIds must be a list of integers");
                if (!absent(ids)) {
                    for (JsonNode i : ids) {
                        check(isInt(i), "taskIds must be a list of integers");
                    }
                }
                break;
            }
            case ACK:
                bools(body, "ok", "more");
                strs(body, "error", "code");
                validateResults(body.get("results"));
                break;
            case REDIRECT:
                strs(body, "server", "reason");
                break;
            case ERROR:
                strs(body, "code", "message");
                break;
            default:
                // hello, heartbeat, report, logs, map, results: the worker's
                // own frames; receiving one is a protocol error, judged later.
        }
    }

    /** A text field, or "" when absent or null. */
    static String text(JsonNode body, String name) {
        JsonNode v = body.get(name);
        return v == null || v.isNull() ? "" : v.asText();
    }

    /** An integer field, or 0 when absent or null. */
    static long integer(JsonNode body, String name) {
        JsonNode v = body.get(name);
        return v == null || v.isNull() ? 0 : v.asLong();
    }

    /**
     * Whether s is a W3C traceparent to start the processor's span under
     * (docs/protocol.md §8.5), as Go's protocol.ValidTraceparent: version
     * 00's four fields exactly, or a later version's (not ff) followed by
     * nothing or "-…"; lower-case hex; neither id all zeros.
     */
    static boolean validTraceparent(String s) {
        if (s == null || s.length() < 55 || (s.length() > 55 && (s.startsWith("00") || s.charAt(55) != '-'))) {
            return false;
        }
        if (s.charAt(2) != '-' || s.charAt(35) != '-' || s.charAt(52) != '-' || s.startsWith("ff")) {
            return false;
        }
        for (int[] f : new int[][]{{0, 2}, {3, 35}, {36, 52}, {53, 55}}) {
            for (int i = f[0]; i < f[1]; i++) {
                char c = s.charAt(i);
                if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                    return false;
                }
            }
        }
        return !allZeros(s, 3, 35) && !allZeros(s, 36, 52);
    }

    private static boolean allZeros(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    static final String CUT = "…[cut]";


    /**
     * Cuts s to at most n bytes of UTF-8, on a character boundary, ending
     * with "…[cut]" when it cut (the whole stays within n).
     */
    static String truncate(String s, int n) {
        if (s == null) {
            return "";
        }
        if (s.length() * 3L <= n || utf8Length(s) <= n) {
            return s;
        }
        int budget = Math.max(n - utf8Length(CUT), 0);
        int used = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (Character.isSurrogate(s.charAt(i)) && Character.charCount(cp) == 1) {
                len = 3; // a lone surrogate is written as U+FFFD
            }
            if (used + len > budget) {
                break;
            }
            used += len;
            i += Character.charCount(cp);
        }
        return s.substring(0, i) + CUT;
    }

    /** The length of s in UTF-8. */
    static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * An upper bound of the bytes s takes as a JSON string, quotes
     * included: control characters may be written as six-byte escapes.
     */
    static int jsonStringLength(String s) {
        int n = 2;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20) {
                n += 6;
            } else if (c == '"' || c == '\\') {
                n += 2;
            } else if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else {
                n += 3; // a surrogate pair: 4 bytes for 2 chars
            }
        }
        return n;
    }

    /** An upper bound of the bytes a JSON tree takes, encoded. */
    static int encodedLength(JsonNode v) {
        if (v == null) {
            return 4;
        }
        if (v.isTextual()) {
            return jsonStringLength(v.asText());
        }
        if (v.isObject()) {
            int n = 2;
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                n += jsonStringLength(e.getKey()) + 2 + encodedLength(e.getValue());
            }
            return n;
        }
        if (v.isArray()) {
            int n = 2;
            for (JsonNode e : v) {
                n += encodedLength(e) + 1;
            }
            return n;
        }
        return v.toString().length();
    }

    private static final DateTimeFormatter RFC3339 = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .append(DateTimeFormatter.ISO_OFFSET_DATE_TIME)
            .toFormatter();

    /** An RFC 3339 time (any fraction, any offset). */
    static Instant parseTime(String s) {
        return OffsetDateTime.parse(s, RFC3339).toInstant();
    }

    /** An RFC 3339 time in UTC, as precise as the clock. */
    static String formatTime(Instant t) {
        return t.toString();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
