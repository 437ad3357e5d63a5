import logging
import threading
import time
import unittest

from jobwheel import protocol
from jobwheel.outbox import MapChunk, MapRefused, Outbox, OutboxClosed, PageRequest, ResultsRefused

LOG = logging.getLogger("jobwheel.test.outbox")
LOG.addHandler(logging.NullHandler())
LOG.propagate = False


def line(inst, text="x"):
    return {"instanceId": inst, "taskId": 1, "time": protocol.format_time(), "level": "INFO", "text": text}


def report(task, status, inst=1):
    return {"taskId": task, "instanceId": inst, "status": status, "at": protocol.format_time()}


class Ids:
    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1
        return self.n


class OutboxTest(unittest.TestCase):
    def setUp(self):
        self.o = Outbox(LOG)
        self.ids = Ids()

    def take(self):
        return self.o.take(self.ids)

    def test_a_page_request_goes_first_and_gets_its_page(self):
        self.o.add_log(line(1))
        p = PageRequest(7, 9, 0, 1000)
        self.o.add_page(p)
        msgs = self.take()
        self.assertEqual([m.type for m in msgs], [protocol.RESULTS, protocol.LOGS])
        self.assertEqual(msgs[0].body(), {"instanceId": 7, "taskId": 9, "after": 0, "limit": 1000})
        self.assertFalse(p.wait(0))
        self.o.ack(msgs[0].id, {"ok": True, "more": True, "results": [{"taskId": 3}]})
        self.assertTrue(p.wait(0))
        self.assertEqual((p.error, p.results, p.more), (None, [{"taskId": 3}], True))

    def test_a_page_request_in_flight_is_sent_again_after_a_reconnect(self):
        p = PageRequest(7, 9, 3000, 1000)
        self.o.add_page(p)
        first = self.take()
        self.o.requeue()  # the connection ended before the ack
        again = self.take()
        self.assertEqual([m.body() for m in again], [m.body() for m in first])
        self.assertNotEqual(again[0].id, first[0].id)
        self.o.ack(first[0].id, {"ok": True, "results": [{"taskId": 1}]})  # an ack of the old connection: ignored
        self.assertFalse(p.wait(0))
        self.o.ack(again[0].id, {"ok": True, "results": []})
        self.assertTrue(p.wait(0))
        self.assertEqual((p.results, p.more), ([], False))

    def test_a_page_request_is_not_owed_to_the_server(self):
        self.o.add_page(PageRequest(7, 9, 0, 1000))
        self.take()
        self.assertFalse(self.o.pending(), "shutting down waits for reports and lines, not for pages")

    def test_a_refused_page_is_final(self):
        p = PageRequest(7, 9, 0, 1000)
        self.o.add_page(p)
        m = self.take()[0]
        self.o.ack(m.id, {"ok": False, "code": "REFUSED", "error": "results: task 9 is not running on this worker"})
        self.assertTrue(p.wait(0))
        self.assertIsInstance(p.error, ResultsRefused)
        self.assertIn("not running on this worker", str(p.error))
        self.o.requeue()
        self.assertEqual(self.take(), [])

    def test_an_abandoned_page_is_not_sent_again(self):
        queued, sent = PageRequest(7, 9, 0, 1000), PageRequest(7, 10, 0, 1000)
        self.o.add_page(sent)
        self.take()
        self.o.add_page(queued)
        self.o.abandon_page(queued)
        self.o.abandon_page(sent)
        self.o.requeue()
        self.assertEqual(self.take(), [])

    def test_close_fails_queued_pages(self):
        p = PageRequest(7, 9, 0, 1000)
        self.o.add_page(p)
        self.o.close()
        self.assertTrue(p.wait(0))
        self.assertIsInstance(p.error, OutboxClosed)
        with self.assertRaises(OutboxClosed):
            self.o.add_page(PageRequest(7, 9, 0, 1000))

    def test_lines_are_numbered_per_worker_across_instances(self):
        for inst in (1, 2, 1):
            self.o.add_log(line(inst))
        (m,) = self.take()
        self.assertEqual(m.type, protocol.LOGS)
        self.assertEqual([(l["instanceId"], l["seq"]) for l in m.body()["lines"]], [(1, 1), (2, 2), (1, 3)])

    def test_batches_stay_within_the_limits(self):
        for _ in range(2500):
            self.o.add_log(line(1))
        msgs = self.take()
        self.assertEqual([len(m.lines) for m in msgs], [1000, 1000, 500])
        o = Outbox(LOG)
        big = "y" * 10000
        for _ in range(300):
            o.add_log(line(1, big))
        for m in o.take(Ids()):
            self.assertLessEqual(len(protocol.encode(m.type, m.body(), id=m.id).encode()), protocol.MAX_FRAME_BYTES)

    def test_window_bounds_messages_in_flight(self):
        o = Outbox(LOG, window=2)
        for _ in range(3):
            o.add_maps([MapChunk(1, 1, "n", "k", 0)])
        ids = Ids()
        first = o.take(ids)
        self.assertEqual(len(first), 2)
        self.assertEqual(o.take(ids), [])
        o.ack(first[0].id, {"ok": True})
        self.assertEqual(len(o.take(ids)), 1)

    def test_maps_go_first_then_logs_then_reports(self):
        self.o.add_report(report(1, protocol.RUNNING))
        self.o.add_log(line(1))
        self.o.add_maps([MapChunk(1, 1, "n", "k", 0)])
        self.assertEqual([m.type for m in self.take()], [protocol.MAP, protocol.LOGS, protocol.REPORT])

    def test_final_report_waits_for_its_lines(self):
        self.o.add_log(line(1, "before"))
        self.o.add_report(report(7, protocol.RUNNING))
        self.o.add_report(report(7, protocol.SUCCEEDED))
        msgs = self.take()
        self.assertEqual([m.type for m in msgs], [protocol.LOGS, protocol.REPORT])
        self.assertEqual([r.body["status"] for r in msgs[1].reports], [protocol.RUNNING])
        self.o.add_log(line(1, "after the final report: need not wait"))
        self.assertEqual([m.type for m in self.take()], [protocol.LOGS])
        self.o.ack(msgs[0].id, {"ok": True})
        (m,) = self.take()
        self.assertEqual([r.body["status"] for r in m.reports], [protocol.SUCCEEDED])

    def test_tasks_stay_listed_until_their_final_report_is_acked(self):
        self.o.add_report(report(7, protocol.RUNNING))
        self.assertEqual(self.o.unacked_finals(), set())
        self.o.add_report(report(7, protocol.FAILED))
        self.assertEqual(self.o.unacked_finals(), {7})
        (m,) = self.take()
        self.o.requeue()  # the connection was lost
        self.assertEqual(self.o.unacked_finals(), {7})
        (m,) = self.take()
        self.o.ack(m.id, {"ok": True})
        self.assertEqual(self.o.unacked_finals(), set())
        self.assertFalse(self.o.pending())

    def test_requeue_sends_the_same_again_first_in_order(self):
        for i in range(3):
            self.o.add_log(line(1, "l%d" % i))
        first = self.take()
        self.o.add_log(line(1, "later"))
        self.o.requeue()
        again = self.take()
        self.assertEqual([(l["seq"], l["text"]) for l in again[0].lines],
                         [(1, "l0"), (2, "l1"), (3, "l2"), (4, "later")])
        self.assertEqual(first[0].lines[:3], again[0].lines[:3])

    def test_refused_logs_and_reports_are_sent_again_after_a_pause(self):
        self.o.RETRY_PAUSE = 0.2
        self.o.add_log(line(1))
        self.o.add_report(report(3, protocol.STOPPED))
        logs, = self.take()
        self.o.ack(logs.id, {"ok": False, "error": "database busy"})
        self.assertEqual(self.take(), [], "sent again without a pause")
        time.sleep(0.25)
        again = self.take()
        self.assertEqual([m.type for m in again], [protocol.LOGS])
        self.assertEqual(again[0].lines, logs.lines)
        self.o.ack(again[0].id, {"ok": True})
        rep, = self.take()
        self.o.ack(rep.id, {"ok": False, "error": "this server does not own the app now; reconnect"})
        self.assertEqual(self.o.unacked_finals(), {3})
        time.sleep(0.25)
        rep2, = self.take()
        self.assertEqual(rep2.reports[0].body, rep.reports[0].body)
        self.o.ack(rep2.id, {"ok": True})
        self.assertEqual(self.o.unacked_finals(), set())

    def test_refused_map_fails_its_caller(self):
        c = MapChunk(1, 1, "n", "k", 3)
        c.body["payloads"] = ["1", "2"]
        self.o.add_maps([c])
        m, = self.take()
        self.o.ack(m.id, {"ok": False, "error": "task 1 of instance 1 is not running on this worker"})
        self.assertTrue(c.wait(1))
        self.assertIsInstance(c.error, MapRefused)
        self.assertIn("subtasks 3..4", str(c.error))
        self.assertEqual(self.take(), [])

    def test_abandoned_maps_are_not_sent_again(self):
        c = MapChunk(1, 1, "n", "k", 0)
        self.o.add_maps([c])
        self.take()
        self.o.abandon([c])
        self.o.requeue()
        self.assertEqual(self.take(), [])

    def test_dropped_lines_are_counted(self):
        o = Outbox(LOG, max_logs=3)
        for inst in (1, 1, 2, 2, 2):
            o.add_log(line(inst))
        m, = o.take(Ids())
        self.assertEqual([l["seq"] for l in m.lines], [3, 4, 5])
        self.assertEqual(m.body()["dropped"], {"1": 2})

    def test_reports_wait_for_room_and_are_never_dropped(self):
        o = Outbox(LOG, max_reports=1)
        o.add_report(report(1, protocol.RUNNING))
        added = threading.Event()
        threading.Thread(target=lambda: (o.add_report(report(2, protocol.RUNNING)), added.set()), daemon=True).start()
        self.assertFalse(added.wait(0.2))
        ids = Ids()
        o.take(ids)
        self.assertTrue(added.wait(5))
        o.close()
        with self.assertRaises(OutboxClosed):
            o.add_report(report(3, protocol.RUNNING))


if __name__ == "__main__":
    unittest.main()
