package io.jobwheel.worker;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProtocolTest {
    @Test
    void validTraceparentsAsGoHasThem() {
        // worker/protocol/traceparent_test.go's table: the SDKs agree on what a processor is given.
        java.util.Map<String, Boolean> cases = new java.util.LinkedHashMap<>();
        cases.put("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true);
        cases.put("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true);
        cases.put("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", true); // a later version may add fields
        cases.put("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", false);
        cases.put("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false);
        cases.put("00-00000000000000000000000000000000-00f067aa0ba902b7-01", false);
        cases.put("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false);
        cases.put("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false);
        cases.put("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", false);
        cases.put("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false);
        cases.put("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", false);
        cases.put("", false);
        cases.put(null, false);
        cases.forEach((s, want) -> assertEquals(want, Protocol.validTraceparent(s), String.valueOf(s)));
    }

    @Test
    void shortTextIsKept() {

        assertEquals("hello", Protocol.truncate("hello", 10));
    }

    @Test
    void cutTextFitsAndSaysSo() {
        String s = Protocol.truncate("x".repeat(100), 20);
        assertTrue(s.endsWith("…[cut]"), s);
        assertTrue(Protocol.utf8Length(s) <= 20, s);
    }

    @Test
    void cutKeepsWholeCharacters() {
        // 3-byte and 4-byte characters: the cut never splits one.
        for (String c : new String[]{"中", "😀", "é"}) {
            String s = Protocol.truncate(c.repeat(50), 30);
            assertTrue(Protocol.utf8Length(s) <= 30, s);
            String kept = s.substring(0, s.length() - Protocol.CUT.length());
            assertEquals(c.repeat(kept.length() / c.length()), kept);
        }
    }

    @Test
    void parsesRfc3339WithAnyFractionAndOffset() {
        Instant want = Instant.parse("2026-11-24T01:58:04.250Z");
        assertEquals(want, Protocol.parseTime("2026-11-24T01:58:04.25Z"));
        assertEquals(want, Protocol.parseTime("2026-11-24T02:58:04.250000000+01:00"));
        assertEquals(want, Protocol.parseTime("2026-11-24t01:58:04.25z"));
        assertEquals(Instant.parse("2026-11-24T01:58:04Z"), Protocol.parseTime("2026-11-24T01:58:04Z"));
        assertEquals(want, Protocol.parseTime(Protocol.formatTime(want)));
    }

    @Test
    void dispatchWithUnknownFieldsIsRead() throws Exception {
        Protocol.Frame f = Protocol.decode("{\"id\":3,\"type\":\"dispatch\",\"x\":1,\"body\":{\"app\":\"a\",\"epoch\":2,\"y\":[],"
                + "\"tasks\":[{\"taskId\":7,\"kind\":\"ROOT\",\"deadline\":\"2026-11-24T01:58:04.25Z\",\"z\":{}}]}}");
        assertEquals(3, f.id);
        assertEquals("dispatch", f.type);
        Task t = new Task(f.body.get("tasks").get(0));
        assertEquals(7, t.taskId);
        assertEquals(Instant.parse("2026-11-24T01:58:04.25Z"), t.deadline);
        assertEquals(1, Math.max(t.shardTotal, 1));
    }

    @Test
    void aTasksStartAtIsReadAsItsDeadlineIs() throws Exception {
        Protocol.Frame f = Protocol.decode("{\"type\":\"dispatch\",\"id\":1,\"body\":{\"tasks\":["
                + "{\"taskId\":1,\"startAt\":\"2026-11-24T02:58:04.25+01:00\",\"deadline\":\"2026-11-24T01:59:04Z\"},"
                + "{\"taskId\":2}]}}");
        Task held = new Task(f.body.get("tasks").get(0));
        assertEquals(Instant.parse("2026-11-24T01:58:04.250Z"), held.startAt);
        assertEquals(Instant.parse("2026-11-24T01:59:04Z"), held.deadline);
        assertEquals(null, new Task(f.body.get("tasks").get(1)).startAt, "omitted: start at once");
        assertTrue(Protocol.decode("{\"type\":\"stop\",\"id\":2,\"body\":{\"instanceId\":0,\"taskIds\":[1],\"unstarted\":true}}")
                .body.get("unstarted").asBoolean());
    }

    @Test
    void missingOrNullBodyIsEmpty() throws Exception {
        assertEquals(0, Protocol.decode("{\"type\":\"ack\",\"re\":4}").body.size());
        assertEquals(0, Protocol.decode("{\"type\":\"ack\",\"re\":4,\"body\":null}").body.size());
    }

    @Test
    void badFramesSayWhatIsWrong() {
        String[][] cases = {
                {"not json", "not a JSON frame"},
                {"[1]", "not a JSON object"},
                {"{\"body\":{}}", "no type"},
                {"{\"type\":\"bogus\"}", "unknown type \"bogus\""},
                {"{\"type\":\"ack\",\"id\":-1}", "id and re must be integers"},
                {"{\"type\":\"ack\",\"re\":1.5}", "id and re must be integers"},
                {"{\"type\":\"ack\",\"body\":[]}", "ack body is not an object"},
                {"{\"type\":\"ack\",\"body\":{\"ok\":\"yes\"}}", "ack: ok must be a boolean"},
                {"{\"type\":\"dispatch\",\"body\":{\"tasks\":{}}}", "dispatch: tasks must be a list"},
                {"{\"type\":\"dispatch\",\"body\":{\"tasks\":[{\"taskId\":\"7\"}]}}", "dispatch: taskId must be an integer"},
                {"{\"type\":\"dispatch\",\"body\":{\"tasks\":[{\"taskId\":7,\"deadline\":\"tomorrow\"}]}}", "deadline"},
                {"{\"type\":\"dispatch\",\"body\":{\"tasks\":[{\"taskId\":7,\"startAt\":\"soon\"}]}}", "task 7: startAt: \"soon\" is not an RFC 3339 time"},
                {"{\"type\":\"dispatch\",\"body\":{\"tasks\":[{\"taskId\":7,\"startAt\":5}]}}", "startAt must be a string"},
                {"{\"type\":\"dispatch\",\"body\":{\"tasks\":[{\"upstream\":{\"a\":1}}]}}", "upstream must be an object of strings"},
                {"{\"type\":\"stop\",\"body\":{\"taskIds\":[\"1\"]}}", "stop: taskIds must be a list of integers"},
                {"{\"type\":\"stop\",\"body\":{\"unstarted\":\"yes\"}}", "stop: unstarted must be a boolean"},
                {"{\"type\":\"welcome\",\"body\":{\"servers\":[1]}}", "welcome: servers must be a list of strings"},
                {"{\"type\":\"welcome\",\"body\":{\"jobChanges\":[{\"fields\":[1]}]}}", "jobChanges[0].fields"},
        };
        for (String[] c : cases) {
            Protocol.BadFrame e = assertThrows(Protocol.BadFrame.class, () -> Protocol.decode(c[0]), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
        }
    }

    @Test
    void framesOverTheLimitAreRefusedBothWays() {
        String big = "x".repeat(Protocol.MAX_FRAME_BYTES);
        assertThrows(Protocol.BadFrame.class, () -> Protocol.decode("{\"type\":\"ack\",\"body\":{\"error\":\"" + big + "\"}}"));
        com.fasterxml.jackson.databind.node.ObjectNode b = Protocol.JSON.createObjectNode();
        b.put("text", big);
        assertThrows(Protocol.FrameTooLarge.class, () -> Protocol.encode("logs", b, 1, 0));
    }

    @Test
    void encodedFramesLeaveOutZeroIds() throws Exception {
        assertEquals("{\"type\":\"heartbeat\",\"body\":{}}", Protocol.encode("heartbeat", Protocol.JSON.createObjectNode(), 0, 0));
        assertEquals("{\"re\":5,\"type\":\"ack\",\"body\":{}}", Protocol.encode("ack", Protocol.JSON.createObjectNode(), 0, 5));
    }

    @Test
    void jsonLengthBoundsTheEncoding() throws Exception {
        for (String s : new String[]{"plain", "quote\" and \\", "tab\tnew\nline\u0001", "中文😀"}) {
            int encoded = Protocol.utf8Length(Protocol.dumps(s));
            assertTrue(Protocol.jsonStringLength(s) >= encoded, s + ": " + Protocol.jsonStringLength(s) + " < " + encoded);
        }
    }

    @Test
    void connectURL() throws Exception {
        assertEquals("ws://h:7700/worker/connect", Worker.connectURL("http://h:7700"));
        assertEquals("wss://h/base/worker/connect", Worker.connectURL("https://h/base/"));
        assertThrows(java.net.URISyntaxException.class, () -> Worker.connectURL("ftp://h"));
    }
}
