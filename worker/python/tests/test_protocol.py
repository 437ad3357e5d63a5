import datetime
import json
import unittest

from jobwheel import protocol


class TruncateTest(unittest.TestCase):
    def test_short_text_is_kept(self):
        self.assertEqual(protocol.truncate("hello", 5), "hello")

    def test_cut_text_fits_and_says_so(self):
        s = protocol.truncate("x" * 100, 20)
        self.assertTrue(s.endswith("…[cut]"))
        self.assertLessEqual(len(s.encode("utf-8")), 20)

    def test_cut_keeps_whole_characters(self):
        s = protocol.truncate("é" * 50, 21)  # é is 2 bytes
        self.assertLessEqual(len(s.encode("utf-8")), 21)
        s.encode("utf-8").decode("utf-8")  # valid UTF-8
        self.assertTrue(s.startswith("é"))


class TraceparentTest(unittest.TestCase):
    def test_valid_traceparents(self):
        cases = {
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": True,
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": True,
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": False,
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": False,
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01": False,
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01": False,
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01": False,
            "": False,
        }
        for s, want in cases.items():
            self.assertEqual(protocol.valid_traceparent(s), want, s)


class TimeTest(unittest.TestCase):
    def test_parses_rfc3339_with_any_fraction_and_offset(self):
        utc = datetime.timezone.utc
        cases = {
            "2026-11-24T01:58:04Z": datetime.datetime(2026, 11, 24, 1, 58, 4, tzinfo=utc),
            "2026-11-24T01:58:04.25Z": datetime.datetime(2026, 11, 24, 1, 58, 4, 250000, tzinfo=utc),
            "2026-11-24T01:58:04.248585667Z": datetime.datetime(2026, 11, 24, 1, 58, 4, 248585, tzinfo=utc),
            "2026-11-24T03:58:04.5+02:00": datetime.datetime(2026, 11, 24, 1, 58, 4, 500000, tzinfo=utc),
        }
        for text, want in cases.items():
            self.assertEqual(protocol.parse_time(text), want, text)

    def test_a_start_time_rounds_up(self):
        # startAt (feature start.at): a task must not start before it, so a
        # fraction finer than Python's microseconds moves it later, never
        # earlier; a deadline is cut as before.
        utc = datetime.timezone.utc
        self.assertEqual(protocol.parse_time("2026-11-24T01:58:04.123456001Z", round_up=True),
                         datetime.datetime(2026, 11, 24, 1, 58, 4, 123457, tzinfo=utc))
        self.assertEqual(protocol.parse_time("2026-11-24T01:58:04.123456000Z", round_up=True),
                         datetime.datetime(2026, 11, 24, 1, 58, 4, 123456, tzinfo=utc))
        self.assertEqual(protocol.parse_time("2026-11-24T01:58:04.999999999Z", round_up=True),
                         datetime.datetime(2026, 11, 24, 1, 58, 5, tzinfo=utc))
        self.assertEqual(protocol.parse_time("2026-11-24T01:58:04.123456001Z"),
                         datetime.datetime(2026, 11, 24, 1, 58, 4, 123456, tzinfo=utc))
        with self.assertRaises(ValueError):
            protocol.parse_time("9999-12-31T23:59:59.9999999Z", round_up=True)

    def test_refuses_other_formats(self):
        for text in ("2026-11-24", "2026-11-24 01:58:04Z", "yesterday", "2026-11-24T01:58:04"):
            with self.assertRaises(ValueError, msg=text):
                protocol.parse_time(text)

    def test_format_round_trips(self):
        now = datetime.datetime.now(datetime.timezone.utc)
        text = protocol.format_time(now)
        self.assertTrue(text.endswith("Z"))
        self.assertEqual(protocol.parse_time(text), now)


class DecodeTest(unittest.TestCase):
    def test_dispatch_with_unknown_fields(self):
        f = protocol.decode(json.dumps({
            "id": 4, "type": "dispatch", "extra": 1,
            "body": {"app": "a", "epoch": 2, "new": {"x": 1}, "tasks": [
                {"taskId": 1, "instanceId": 2, "kind": "ROOT", "deadline": "2026-11-24T01:59:04.217Z", "future": True}]}}))
        self.assertEqual((f.id, f.re, f.type), (4, 0, "dispatch"))
        self.assertEqual(f.body["tasks"][0]["taskId"], 1)

    def test_a_page_of_results(self):
        f = protocol.decode(json.dumps({"re": 5, "type": "ack", "body": {"ok": True, "more": True, "results": [
            {"taskId": 3, "name": "square", "success": True, "result": "9"}]}}))
        self.assertEqual((f.re, f.body["more"], f.body["results"][0]["result"]), (5, True, "9"))
        f = protocol.decode('{"type":"dispatch","body":{"tasks":[{"taskId":7,"kind":"REDUCE","resultsPaged":true,"resultCount":2501}]}}')
        self.assertEqual(f.body["tasks"][0]["resultCount"], 2501)

    def test_start_at_and_unstarted(self):
        f = protocol.decode('{"type":"dispatch","body":{"tasks":[{"taskId":7,"startAt":"2026-11-24T01:59:04.217283917Z"}]}}')
        self.assertEqual(f.body["tasks"][0]["startAt"], "2026-11-24T01:59:04.217283917Z")
        f = protocol.decode('{"id":3,"type":"stop","body":{"instanceId":0,"taskIds":[7],"reason":"job changed","unstarted":true}}')
        self.assertIs(f.body["unstarted"], True)

    def test_missing_or_null_body_is_empty(self):
        self.assertEqual(protocol.decode('{"type":"welcome"}').body, {})
        self.assertEqual(protocol.decode('{"type":"ack","re":3,"body":null}').body, {})

    def test_bad_frames_say_what_is_wrong(self):
        cases = {
            "not json": "not a JSON frame",
            "[1]": "not a JSON object",
            '{"body":{}}': "no type",
            '{"type":"bogus"}': "unknown type",
            '{"type":"ack","id":-1}': "id and re",
            '{"type":"ack","re":"1"}': "id and re",
            '{"type":"ack","body":[]}': "body is not an object",
            '{"type":"ack","body":{"ok":"yes"}}': "ok must be a boolean",
            '{"type":"dispatch","body":{"tasks":{}}}': "tasks must be a list",
            '{"type":"dispatch","body":{"tasks":[{"taskId":"7"}]}}': "taskId must be an integer",
            '{"type":"dispatch","body":{"tasks":[{"taskId":7,"deadline":"soon"}]}}': "deadline",
            '{"type":"stop","body":{"taskIds":[1,"2"]}}': "taskIds",
            '{"type":"dispatch","body":{"tasks":[{"taskId":7,"startAt":"at noon"}]}}': "task 7: startAt",
            '{"type":"dispatch","body":{"tasks":[{"taskId":7,"startAt":5}]}}': "startAt must be a string",
            '{"type":"stop","body":{"taskIds":[1],"unstarted":"yes"}}': "unstarted must be a boolean",
            '{"type":"welcome","body":{"servers":"http://a"}}': "servers",
            '{"type":"ack","body":{"ok":true,"more":1}}': "more must be a boolean",
            '{"type":"ack","body":{"ok":true,"results":[{"taskId":"1"}]}}': "taskId must be an integer",
            '{"type":"ack","body":{"ok":true,"results":{}}}': "results must be a list",
            '{"type":"dispatch","body":{"tasks":[{"taskId":7,"resultsPaged":"yes"}]}}': "resultsPaged must be a boolean",
            '{"type":"dispatch","body":{"tasks":[{"taskId":7,"resultCount":"3"}]}}': "resultCount must be an integer",
        }
        for text, want in cases.items():
            with self.assertRaises(protocol.BadFrame, msg=text) as cm:
                protocol.decode(text)
            self.assertIn(want, str(cm.exception), text)


class EncodeTest(unittest.TestCase):
    def test_frame_fields(self):
        self.assertEqual(json.loads(protocol.encode("ack", {"ok": True}, re=3)), {"type": "ack", "body": {"ok": True}, "re": 3})
        self.assertEqual(json.loads(protocol.encode("logs", {"lines": []}, id=9)), {"type": "logs", "body": {"lines": []}, "id": 9})

    def test_refuses_frames_over_the_limit(self):
        with self.assertRaises(protocol.FrameTooLarge):
            protocol.encode("logs", {"lines": [{"text": "x" * protocol.MAX_FRAME_BYTES}]}, id=1)


if __name__ == "__main__":
    unittest.main()
