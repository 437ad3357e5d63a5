"""The worker's decisions without a server: configuration, accepting and
rejecting tasks, stops, running processors to their reports, back-off.
The whole protocol, against a server, is the conformance kit's
(worker/conformance), which `make test` runs against the SDK."""

import datetime
import logging
import threading
import time
import unittest

import jobwheel
from jobwheel import protocol
from jobwheel.worker import _connect_url

QUIET = logging.getLogger("jobwheel.test.worker")
QUIET.addHandler(logging.NullHandler())
QUIET.propagate = False

FAILSAFE = 10.0


def new_worker(**kw):
    kw.setdefault("slots", 2)
    kw.setdefault("logger", QUIET)
    return jobwheel.Worker("orders", "s3cret", ["http://127.0.0.1:7700"], **kw)


def task(tid, proc="p", **fields):
    t = {"taskId": tid, "instanceId": 100 + tid, "jobId": 1, "attempt": 1, "kind": "ROOT", "name": "ROOT",
         "executionMode": "STANDALONE", "processorType": "GO", "processor": proc}
    t.update(fields)
    return t


def dispatch(*tasks, app="orders", epoch=1):
    return {"app": app, "epoch": epoch, "tasks": list(tasks)}


class Recorder:
    """Takes what the worker queues for the server, acking it."""

    def __init__(self, w):
        self.w = w
        self.n = 0
        self.reports = []
        self.lines = []

    def _id(self):
        self.n += 1
        return self.n

    def drain(self):
        for m in self.w._outbox.take(self._id):
            body = m.body()
            self.reports += body.get("items", [])
            self.lines += body.get("lines", [])
            self.w._outbox.ack(m.id, {"ok": True})

    def final(self, tid):
        """Waits for the task's final report."""
        deadline = time.monotonic() + FAILSAFE
        while time.monotonic() < deadline:
            self.drain()
            for r in self.reports:
                if r["taskId"] == tid and r["status"] != protocol.RUNNING:
                    return r
            time.sleep(0.01)
        raise AssertionError("no final report for task %d within %ss" % (tid, FAILSAFE))

    def statuses(self, tid):
        return [r["status"] for r in self.reports if r["taskId"] == tid]

    def wait_for(self, what, cond):
        deadline = time.monotonic() + FAILSAFE
        while not cond():
            if time.monotonic() > deadline:
                raise AssertionError("waited %ss for %s" % (FAILSAFE, what))
            self.drain()
            time.sleep(0.01)


class ConfigTest(unittest.TestCase):
    def test_bad_settings_name_the_setting(self):
        cases = [
            (dict(app=" "), "app"),
            (dict(secret=""), "secret"),
            (dict(servers=[]), "servers"),
            (dict(servers=["ftp://x"]), "servers[0]"),
            (dict(slots=0), "slots"),
            (dict(slots=10001), "slots"),
            (dict(tags=["a", ""]), "tags[1]"),
            (dict(name="n" * 101), "name"),
            (dict(flush_interval=0), "flush_interval"),
            (dict(work_dir="/no/such/dir"), "work_dir"),
        ]
        for change, field in cases:
            kw = dict(app="orders", secret="s", servers=["http://localhost:7700"])
            kw.update(change)
            with self.assertRaises(jobwheel.ConfigError, msg=field) as cm:
                jobwheel.Worker(**kw)
            self.assertEqual(cm.exception.field, field)

    def test_from_env(self):
        w = jobwheel.Worker.from_env({"JOBWHEEL_APP": "orders", "JOBWHEEL_APP_SECRET": "s",
                                      "JOBWHEEL_SERVERS": "http://a:1, http://b:2/", "JOBWHEEL_WORKER_TAGS": "x,y",
                                      "JOBWHEEL_WORKER_SLOTS": "3", "JOBWHEEL_WORKER_NAME": "py"})
        self.assertEqual((w.app, w.servers, w.tags, w.slots, w.name), ("orders", ["http://a:1", "http://b:2"], ["x", "y"], 3, "py"))
        self.assertTrue(w.worker_id.startswith("py-"))
        self.assertNotEqual(w.worker_id, jobwheel.Worker.from_env({"JOBWHEEL_APP": "o", "JOBWHEEL_APP_SECRET": "s",
                                                                   "JOBWHEEL_WORKER_NAME": "py"}).worker_id)

    def test_from_env_names_the_variable(self):
        for env, var in (({"JOBWHEEL_APP_SECRET": "s"}, "JOBWHEEL_APP"),
                         ({"JOBWHEEL_APP": "o", "JOBWHEEL_APP_SECRET": "s", "JOBWHEEL_WORKER_SLOTS": "many"}, "JOBWHEEL_WORKER_SLOTS"),
                         ({"JOBWHEEL_APP": "o", "JOBWHEEL_APP_SECRET": "s", "JOBWHEEL_SERVERS": "localhost:7700"}, "JOBWHEEL_SERVERS")):
            with self.assertRaises(jobwheel.ConfigError) as cm:
                jobwheel.Worker.from_env(env)
            self.assertEqual(cm.exception.field, var)

    def test_register_refuses_duplicates(self):
        w = new_worker()
        w.register("a", lambda ctx: None)
        with self.assertRaises(ValueError):
            w.register("a", lambda ctx: None)
        with self.assertRaises(ValueError):
            w.register(" ", lambda ctx: None)

    def test_connect_url(self):
        self.assertEqual(_connect_url("http://h:7700"), "ws://h:7700/worker/connect")
        self.assertEqual(_connect_url("https://h/base/"), "wss://h/base/worker/connect")
        with self.assertRaises(ValueError):
            _connect_url("ftp://h")


class AcceptTest(unittest.TestCase):
    def setUp(self):
        self.w = new_worker()
        self.w.register("p", lambda ctx: ctx.wait_cancelled() and None)
        self.rec = Recorder(self.w)

    def tearDown(self):
        self.w._shutdown(graceful=False)

    def test_rejections_say_why(self):
        ack = self.w._accept(dispatch(task(1), task(2, "nope"), task(3, processorType="SHELL"), task(4, kind="ODD")))
        self.assertEqual(ack["accepted"], [1])
        reasons = {r["taskId"]: r["reason"] for r in ack["rejected"]}
        self.assertIn("no GO processor named 'nope'", reasons[2])
        self.assertIn("processor type 'SHELL' is not supported", reasons[3])
        self.assertIn("unknown task kind 'ODD'", reasons[4])

    def test_slots(self):
        ack = self.w._accept(dispatch(task(1), task(2), task(3)))
        self.assertEqual(ack["accepted"], [1, 2])
        self.assertIn("no free slot", ack["rejected"][0]["reason"])

    def test_other_app(self):
        ack = self.w._accept(dispatch(task(1), app="billing"))
        self.assertEqual(ack["accepted"], [])
        self.assertIn("dispatch is for app 'billing'", ack["rejected"][0]["reason"])

    def test_epochs_fence_old_owners(self):
        self.w._welcomed({"epoch": 5}, "ws://x")
        self.assertIn("stale epoch 4", self.w._accept(dispatch(task(1), epoch=4))["rejected"][0]["reason"])
        self.assertEqual(self.w._accept(dispatch(task(2), epoch=6))["accepted"], [2])
        self.assertEqual(self.w._accept(dispatch(task(3), epoch=5))["accepted"], [])

    def test_a_task_dispatched_twice_runs_once(self):
        self.assertEqual(self.w._accept(dispatch(task(1)))["accepted"], [1])
        self.assertEqual(self.w._accept(dispatch(task(1)))["accepted"], [1])
        self.rec.wait_for("RUNNING", lambda: self.rec.statuses(1))
        self.w._stop_tasks({"instanceId": 101})
        self.rec.final(1)
        self.assertEqual(self.rec.statuses(1), [protocol.RUNNING, protocol.STOPPED])

    def test_no_new_tasks_while_shutting_down(self):
        self.w._shutdown(graceful=False)
        self.assertIn("shutting down", self.w._accept(dispatch(task(1)))["rejected"][0]["reason"])

    def test_stops_by_instance_by_task_and_with_instance_0(self):
        self.w = new_worker(slots=5)
        self.w.register("p", lambda ctx: ctx.wait_cancelled() and None)
        self.rec = Recorder(self.w)
        self.w._accept(dispatch(task(1), task(2, instanceId=101), task(3), task(4)))
        self.w._stop_tasks({"instanceId": 101, "taskIds": [2], "reason": "r"})
        self.assertEqual(self.rec.final(2)["result"], "stopped: r")
        self.w._stop_tasks({"instanceId": 999, "taskIds": [1]})  # another instance: not this task
        self.w._stop_tasks({"instanceId": 0, "taskIds": [3]})
        self.rec.final(3)
        self.w._stop_tasks({"instanceId": 101})
        self.rec.final(1)
        self.assertEqual(self.rec.statuses(4), [protocol.RUNNING])
        self.assertEqual(self.w._running_ids(), [4])


class ExecuteTest(unittest.TestCase):
    def setUp(self):
        self.w = new_worker(slots=4, abandon_after=0.2)
        self.rec = Recorder(self.w)

    def tearDown(self):
        self.w._shutdown(graceful=False)

    def run_task(self, fn, reduce=None, **fields):
        self.w.register("p%d" % (len(self.w._processors) + 1), fn, reduce=reduce)
        t = task(len(self.w._processors), "p%d" % len(self.w._processors), **fields)
        self.assertEqual(self.w._accept(dispatch(t))["accepted"], [t["taskId"]])
        return t, self.rec.final(t["taskId"])

    def test_success_with_lines(self):
        def fn(ctx):
            ctx.log.info("hello %s", ctx.params, n=1, who="a b")
            ctx.log.warning("careful")
            return "done"

        t, final = self.run_task(fn, params="p-1")
        self.assertEqual(self.rec.statuses(t["taskId"]), [protocol.RUNNING, protocol.SUCCEEDED])
        self.assertEqual(final["result"], "done")
        self.assertEqual([(l["level"], l["text"]) for l in self.rec.lines],
                         [("INFO", 'hello p-1 n=1 who="a b"'), ("WARN", "careful")])
        self.assertEqual(self.w._running_ids(), [])

    def test_processor_sees_the_runs_trace_context(self):
        # docs/protocol.md §8.5: a traced run's processor gets the trace
        # context to pass on; a malformed one is ignored, and the task runs
        # all the same.
        tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        seen = []
        t, final = self.run_task(lambda ctx: seen.append(ctx.traceparent) or "ok", traceparent=tp)
        self.assertEqual(final["status"], protocol.SUCCEEDED)
        t, final = self.run_task(lambda ctx: seen.append(ctx.traceparent) or "ok", traceparent="00-nonsense")
        self.assertEqual(final["status"], protocol.SUCCEEDED)
        t, final = self.run_task(lambda ctx: seen.append(ctx.traceparent) or "ok")
        # Without OpenTelemetry installed, the server's span is passed on
        # as it came.
        self.assertEqual(seen, [tp, "", ""])

    def test_a_heartbeat_never_misses_an_ending_task(self):
        # Nothing is acked, so every task accepted stays listed: as running,
        # then as a final report the server has not acknowledged. A list
        # taken while a task ends that names it nowhere would make the
        # server run it again.
        w = new_worker(slots=300)
        self.addCleanup(w._shutdown, graceful=False)
        w.register("nop", lambda ctx: "ok")
        missed, done = [], threading.Event()

        def poll():
            seen = set()
            while not done.is_set() and not missed:
                listed = set(w._running_ids())
                missed.extend(seen - listed)
                seen |= listed

        poller = threading.Thread(target=poll)
        poller.start()
        tasks = [task(i, "nop") for i in range(1, 301)]
        self.assertEqual(len(w._accept(dispatch(*tasks))["accepted"]), 300)
        deadline = time.monotonic() + FAILSAFE
        while len(w._outbox.unacked_finals()) < 300 and time.monotonic() < deadline:
            time.sleep(0.01)
        done.set()
        poller.join()
        self.assertEqual(missed, [])
        self.assertEqual(len(w._running_ids()), 300)

    def test_an_exception_fails_the_task(self):
        def fn(ctx):
            raise ValueError("bad input")

        _, final = self.run_task(fn)
        self.assertEqual((final["status"], final["result"]), (protocol.FAILED, "bad input"))
        self.assertIn("Traceback", self.rec.lines[0]["text"])

    def test_deadline(self):
        deadline = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(milliseconds=200)
        _, final = self.run_task(lambda ctx: ctx.wait_cancelled() and None, deadline=protocol.format_time(deadline))
        self.assertEqual((final["status"], final.get("reason")), (protocol.FAILED, protocol.REASON_TIMEOUT))
        self.assertTrue(final["result"].startswith("timed out after"), final["result"])

    def test_a_processor_that_ignores_a_stop_is_reported_anyway(self):
        release = threading.Event()
        self.addCleanup(release.set)

        def fn(ctx):
            release.wait(FAILSAFE)  # deaf to the stop
            return "late"

        self.w.register("slow", fn)
        self.w._accept(dispatch(task(1, "slow")))
        self.rec.wait_for("RUNNING", lambda: self.rec.statuses(1))
        self.w._stop_tasks({"instanceId": 101, "reason": "enough"})
        final = self.rec.final(1)
        self.assertEqual((final["status"], final["result"]), (protocol.STOPPED, "stopped: enough"))
        self.assertEqual(self.w._running_ids(), [])
        self.assertIn(1, self.w._running, "the slot stays taken until the processor returns")
        release.set()
        self.rec.wait_for("the slot to be freed", lambda: 1 not in self.w._running)

    def test_kinds_and_results(self):
        results = [{"taskId": 1, "name": "square", "success": True, "result": "4"},
                   {"taskId": 2, "name": "square", "success": False, "result": "boom"}]
        _, final = self.run_task(lambda ctx: "unused", reduce=lambda ctx, rs: "sum %d" % sum(int(r.result) for r in rs if r.success),
                                 kind="REDUCE", name="REDUCE", results=results)
        self.assertEqual(final["result"], "sum 4")
        _, final = self.run_task(lambda ctx: "unused", kind="REDUCE", results=results)
        self.assertEqual(final["status"], protocol.FAILED)
        self.assertIn("cannot reduce", final["result"])
        _, final = self.run_task(lambda ctx: "unused", kind="POST", results=results)
        self.assertEqual(final["result"], "no post-process; 1 of 2 tasks succeeded")
        _, final = self.run_task(lambda ctx: str(ctx.payload_json() * 2), kind="MAP", name="square", payload="21")
        self.assertEqual(final["result"], "42")

    def test_workflow_context(self):
        def fn(ctx):
            ctx.set_workflow_value("total", ctx.workflow_context["n"] + 1)
            assert ctx.workflow_context["total"] == 3
            return ctx.upstream["a"]

        _, final = self.run_task(fn, workflowRunId=9, workflowNode="b", workflowContext={"n": 2}, upstream={"a": "up"})
        self.assertEqual((final["result"], final["workflowContext"]), ("up", {"total": 3}))
        _, final = self.run_task(lambda ctx: ctx.set_workflow_value("bad", object()))
        self.assertEqual(final["status"], protocol.FAILED)
        self.assertIn("cannot be encoded as JSON", final["result"])

    def test_map_outside_map_jobs(self):
        def fn(ctx):
            ctx.map([1], "sub")

        _, final = self.run_task(fn)
        self.assertIn("only MAP and MAP_REDUCE jobs", final["result"])

    def test_map_waits_for_the_server(self):
        def fn(ctx):
            ctx.map(list(range(2500)), "sub")
            return "mapped"

        self.w.register("m", fn)
        self.w._accept(dispatch(task(1, "m", executionMode="MAP")))
        maps = []
        ids = iter(range(1, 100))
        deadline = time.monotonic() + FAILSAFE
        while len(maps) < 3 and time.monotonic() < deadline:
            for m in self.w._outbox.take(lambda: next(ids)):
                if m.type == protocol.MAP:
                    maps.append(m)
                    self.w._outbox.ack(m.id, {"ok": True})
            time.sleep(0.01)
        self.assertEqual([len(m.body()["payloads"]) for m in maps], [1000, 1000, 500])
        self.assertEqual(len({m.body()["key"] for m in maps}), 3)
        self.assertEqual(self.rec.final(1)["result"], "mapped")

    def test_map_waits_while_the_server_stores_slowly(self):
        # map_timeout counts only while the server stores none of this
        # worker's chunks: task 1's one chunk waits behind task 2's fifteen,
        # stored one at a time, for three times map_timeout in all.
        w = new_worker(slots=4, map_timeout=0.5)
        self.addCleanup(w._shutdown, graceful=False)
        rec = Recorder(w)
        w.register("one", lambda ctx: ctx.map([1], "one") or "one mapped")
        w.register("many", lambda ctx: ctx.map(list(range(15000)), "many") or "many mapped")
        w._accept(dispatch(task(2, "many", executionMode="MAP")))
        ids = iter(range(1, 1000))
        held, pending, acked = None, [], 0
        start = time.monotonic()
        deadline = start + FAILSAFE
        while acked < 15 and time.monotonic() < deadline:
            for m in w._outbox.take(lambda: next(ids)):
                if m.type != protocol.MAP:
                    rec.reports += m.body().get("items", [])
                    w._outbox.ack(m.id, {"ok": True})
                elif m.body()["payloads"] == ["1"]:
                    held = m
                else:
                    pending.append(m)
            if acked == 0 and held is None:
                w._accept(dispatch(task(1, "one", executionMode="MAP")))
            if pending:
                w._outbox.ack(pending.pop(0).id, {"ok": True})
                acked += 1
            time.sleep(0.1)  # a slow server: storing all takes longer than map_timeout
        self.assertEqual(acked, 15, "task 2's chunks stopped coming: its map gave up")
        self.assertGreater(time.monotonic() - start, 0.5, "the test proves nothing unless it outlasts map_timeout")
        deadline = time.monotonic() + FAILSAFE
        while held is None and time.monotonic() < deadline:
            for m in w._outbox.take(lambda: next(ids)):
                if m.type == protocol.MAP:
                    held = m
                else:
                    w._outbox.ack(m.id, {"ok": True})
            time.sleep(0.01)
        w._outbox.ack(held.id, {"ok": True})
        self.assertEqual(rec.final(1)["result"], "one mapped")
        self.assertEqual(rec.final(2)["result"], "many mapped")

    def test_shutdown_fails_running_tasks_that_do_not_finish(self):
        def fn(ctx):
            if ctx.wait_cancelled():
                raise RuntimeError("interrupted")

        self.w.register("b", fn)
        self.w.register("finishes", lambda ctx: ctx.wait_cancelled() and "finished all the same")
        self.w._accept(dispatch(task(1, "b"), task(2, "finishes")))
        self.rec.wait_for("RUNNING", lambda: self.rec.statuses(1) and self.rec.statuses(2))
        self.w._shutdown(graceful=False)
        final = self.rec.final(1)
        self.assertEqual((final["status"], final["result"]), (protocol.FAILED, "worker shutting down: interrupted"))
        final = self.rec.final(2)
        self.assertEqual((final["status"], final["result"]), (protocol.SUCCEEDED, "finished all the same"))


def in_(seconds):
    """The wire time seconds from now (negative: ago)."""
    return protocol.format_time(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds))


HOUR = 3600


class StartAtTest(unittest.TestCase):
    """docs/protocol.md §8.6, feature start.at: a task dispatched with
    startAt in the future is accepted and held (a slot, listed as running,
    nothing reported) until then; stopped, taken back, handed back on
    shutdown or timed out while held, it ends without running."""

    def setUp(self):
        self.w = new_worker(slots=4)
        self.called = []  # task ids whose processor ran, with the time it did
        self.release = threading.Event()
        self.addCleanup(self.release.set)

        def fn(ctx):
            self.called.append((ctx.task_id, datetime.datetime.now(datetime.timezone.utc)))
            return "ran"

        def until_released(ctx):
            self.called.append((ctx.task_id, datetime.datetime.now(datetime.timezone.utc)))
            self.release.wait(FAILSAFE)
            return "stopped: " + ctx.cancel_reason if ctx.cancelled else "went on"

        self.w.register("p", fn)
        self.w.register("long", until_released)
        self.rec = Recorder(self.w)

    def tearDown(self):
        self.w._shutdown(graceful=False)

    def ran(self):
        return [tid for tid, _ in self.called]

    def test_hello_names_the_feature(self):
        self.assertEqual(protocol.FEATURE_START_AT, "start.at")
        self.assertIn("start.at", self.w._hello()["features"])

    def test_a_held_task_is_accepted_listed_and_takes_a_slot(self):
        self.w = new_worker(slots=2)
        self.w.register("p", lambda ctx: self.called.append((ctx.task_id, None)) or "ran")
        self.rec = Recorder(self.w)
        self.assertEqual(self.w._accept(dispatch(task(1, startAt=in_(HOUR))))["accepted"], [1])
        # Dispatched twice (a lost ack): accepted, held once.
        self.assertEqual(self.w._accept(dispatch(task(1, startAt=in_(HOUR))))["accepted"], [1])
        ack = self.w._accept(dispatch(task(2, startAt=in_(HOUR)), task(3)))
        self.assertEqual(ack["accepted"], [2])
        self.assertEqual([(r["taskId"], r.get("code")) for r in ack["rejected"]], [(3, protocol.REJECT_FULL)])
        # A newer owner's epoch does not drop them: it adopts them through
        # hello.running.
        self.w._welcomed({"epoch": 7}, "ws://x")
        self.assertEqual(self.w._running_ids(), [1, 2], "the heartbeat's running list")
        self.assertEqual(self.w._hello()["running"], [1, 2], "hello.running after a reconnect")
        self.rec.drain()
        self.assertEqual((self.rec.reports, self.rec.lines, self.called), ([], [], []))

    def test_a_held_task_starts_at_its_time_not_before(self):
        start_at = in_(0.3)[:-1] + "001Z"  # nanoseconds, past Python's microseconds
        self.assertEqual(self.w._accept(dispatch(task(1, startAt=start_at), task(2, startAt=in_(-5))))["accepted"], [1, 2])
        self.assertEqual(self.rec.final(2)["status"], protocol.SUCCEEDED)
        final = self.rec.final(1)
        self.assertEqual(self.rec.statuses(1), [protocol.RUNNING, protocol.SUCCEEDED])
        self.assertEqual(final["result"], "ran")
        running = next(r for r in self.rec.reports if r["taskId"] == 1 and r["status"] == protocol.RUNNING)
        not_before = protocol.parse_time(start_at, round_up=True)
        self.assertGreaterEqual(protocol.parse_time(running["at"]), not_before, "RUNNING's at")
        self.assertEqual(self.ran(), [2, 1], "a task whose startAt has passed runs at once")
        self.assertGreaterEqual(self.called[1][1], not_before, "when the processor was called")

    def test_a_stop_ends_a_held_task_without_running_it(self):
        self.w._accept(dispatch(task(1, startAt=in_(HOUR)), task(2, startAt=in_(HOUR)), task(3, startAt=in_(HOUR))))
        self.w._stop_tasks({"instanceId": 101, "reason": "the instance was STOPPED"})
        final = self.rec.final(1)
        self.assertEqual((final["status"], final["result"]), (protocol.STOPPED, "stopped before it started: the instance was STOPPED"))
        self.w._stop_tasks({"instanceId": 0, "taskIds": [3], "reason": "no longer yours"})
        self.assertEqual(self.rec.final(3)["result"], "stopped before it started: no longer yours")
        self.assertEqual((self.rec.statuses(1), self.rec.statuses(3)), ([protocol.STOPPED], [protocol.STOPPED]))
        self.rec.wait_for("the slots to be freed", lambda: self.w._busy == 1)
        self.assertEqual(self.w._running_ids(), [2])
        self.assertEqual(self.called, [])

    def test_a_take_back_ends_held_tasks_only(self):
        self.w._accept(dispatch(task(1, "long"), task(2, "long", startAt=in_(HOUR))))
        self.rec.wait_for("task 1 RUNNING", lambda: self.rec.statuses(1))
        self.w._stop_tasks({"instanceId": 0, "taskIds": [1, 2], "reason": "the job changed", "unstarted": True})
        final = self.rec.final(2)
        self.assertEqual((final["status"], final.get("reason"), final["result"]),
                         (protocol.FAILED, protocol.REASON_HANDED_BACK, "handed back before it started: the job changed"))
        self.assertEqual(self.rec.statuses(2), [protocol.FAILED])
        # By instance too; the started task is not touched by either.
        self.w._stop_tasks({"instanceId": 101, "reason": "the job changed", "unstarted": True})
        self.assertFalse(self.w._running[1].ctx.cancelled)
        self.release.set()
        final = self.rec.final(1)
        self.assertEqual((final["status"], final["result"]), (protocol.SUCCEEDED, "went on"))
        self.assertEqual(self.ran(), [1])
        # Handed back, the server may send it here again: it runs.
        self.rec.wait_for("task 2 to be gone", lambda: 2 not in self.w._running)
        self.assertEqual(self.w._accept(dispatch(task(2)))["accepted"], [2])
        self.rec.wait_for("task 2 to run", lambda: protocol.SUCCEEDED in self.rec.statuses(2))
        self.assertEqual(self.rec.statuses(2), [protocol.FAILED, protocol.RUNNING, protocol.SUCCEEDED])

    def test_shutdown_hands_held_tasks_back_at_once(self):
        # Task 2's start time falls within the shutdown timeout: it is not
        # started for that.
        self.w._accept(dispatch(task(1, startAt=in_(HOUR)), task(2, startAt=in_(0.2)), task(3, "long")))
        self.rec.wait_for("task 3 RUNNING", lambda: self.rec.statuses(3))
        self.w._shutdown(graceful=False)
        for tid in (1, 2):
            final = self.rec.final(tid)
            self.assertEqual((final["status"], final.get("reason"), final["result"]),
                             (protocol.FAILED, protocol.REASON_HANDED_BACK, "handed back before it started: worker shutting down"))
            self.assertEqual(self.rec.statuses(tid), [protocol.FAILED])
        self.release.set()
        self.assertEqual(self.rec.final(3)["status"], protocol.SUCCEEDED)  # returned a result all the same
        self.assertEqual(self.ran(), [3])

    def test_a_deadline_before_the_start_fails_the_task_unrun(self):
        self.w._accept(dispatch(task(1, startAt=in_(HOUR), deadline=in_(0.2)),
                                task(2, startAt=in_(HOUR), deadline=in_(-1))))
        for tid in (1, 2):
            final = self.rec.final(tid)
            self.assertEqual((final["status"], final.get("reason")), (protocol.FAILED, protocol.REASON_TIMEOUT))
            self.assertTrue(final["result"].startswith("timed out before it started"), final["result"])
            self.assertEqual(self.rec.statuses(tid), [protocol.FAILED])
        self.assertEqual(self.called, [])


class PageServer:
    """Plays the server for a task that reads its results in pages: acks
    reports and lines, and answers each results request from results
    (dicts, in task id order) with answer(request) — by default the page
    the protocol asks for."""

    def __init__(self, w, results):
        self.w = w
        self.results = results
        self.n = 0
        self.requests = []  # bodies of the results requests, in order
        self.reports = []
        self.answer = self.page

    def _id(self):
        self.n += 1
        return self.n

    def page(self, req):
        rest = [r for r in self.results if r["taskId"] > req["after"]]
        return {"ok": True, "results": rest[:req["limit"]], "more": len(rest) > req["limit"]}

    def pump(self):
        for m in self.w._outbox.take(self._id):
            body = m.body()
            if m.type == protocol.RESULTS:
                self.requests.append(dict(body))
                a = self.answer(body)
                if a is not None:  # None: left unanswered
                    self.w._outbox.ack(m.id, a)
                continue
            self.reports += body.get("items", [])
            self.w._outbox.ack(m.id, {"ok": True})

    def final(self, tid):
        deadline = time.monotonic() + FAILSAFE
        while time.monotonic() < deadline:
            self.pump()
            for r in self.reports:
                if r["taskId"] == tid and r["status"] != protocol.RUNNING:
                    return r
            time.sleep(0.005)
        raise AssertionError("no final report for task %d within %ss" % (tid, FAILSAFE))


def squares(n):
    """A REDUCE task's results: the ROOT's, then n subtasks' squares."""
    out = [{"taskId": 1, "name": "ROOT", "success": True, "result": "mapped %d subtasks" % n}]
    out += [{"taskId": i + 1, "name": "square", "success": True, "result": str(i * i)} for i in range(1, n + 1)]
    return out


def reduce_task(tid=50, n=2500, **fields):
    return task(tid, "mr", kind="REDUCE", name="REDUCE", executionMode="MAP_REDUCE", resultsPaged=True,
                resultCount=n + 1, **fields)


class PagedResultsTest(unittest.TestCase):
    """docs/protocol.md §11.1: a POST or REDUCE task dispatched with
    resultsPaged reads its results from the server, a page at a time."""

    N = 2500
    SUM = N * (N + 1) * (2 * N + 1) // 6

    def setUp(self):
        self.w = new_worker(slots=4, map_timeout=FAILSAFE)
        self.srv = PageServer(self.w, squares(self.N))

    def tearDown(self):
        self.w._shutdown(graceful=False)

    def run_reduce(self, reduce, **fields):
        self.w.register("mr", lambda ctx: "unused", reduce=reduce)
        t = reduce_task(**fields)
        self.assertEqual(self.w._accept(dispatch(t))["accepted"], [t["taskId"]])
        return self.srv.final(t["taskId"])

    def test_hello_names_the_feature(self):
        self.assertIn(protocol.FEATURE_RESULTS_PAGED, self.w._hello()["features"])

    def test_a_reduce_reads_page_after_page_lazily(self):
        seen = {}

        def reduce(ctx, results):
            self.assertNotIsInstance(results, list)
            self.assertIs(results, ctx.results)
            self.assertTrue(results.paged)
            self.assertEqual(results.result_count, self.N + 1)
            total = 0
            for r in results:
                if "first" not in seen:
                    seen["first"] = len(self.srv.requests)  # pages asked for when the first result arrived
                if r.name == "square" and r.success:
                    total += int(r.result)
            return "sum %d" % total

        final = self.run_reduce(reduce)
        self.assertEqual((final["status"], final["result"]), (protocol.SUCCEEDED, "sum %d" % self.SUM))
        self.assertEqual(seen["first"], 1, "the reduce got the first page before the next was asked for")
        self.assertEqual(self.srv.requests, [{"instanceId": 150, "taskId": 50, "after": a, "limit": 1000}
                                             for a in (0, 1000, 2000)])

    def test_a_connection_lost_mid_read_reads_the_page_again(self):
        lost = []

        def answer(req):
            if req["after"] == 1000 and not lost:
                lost.append(req)
                self.w._outbox.requeue()  # what the worker does when the connection ends
                return None
            return self.srv.page(req)

        self.srv.answer = answer
        final = self.run_reduce(lambda ctx, rs: "sum %d" % sum(int(r.result) for r in rs if r.name == "square"))
        self.assertEqual((final["status"], final["result"]), (protocol.SUCCEEDED, "sum %d" % self.SUM))
        self.assertEqual([r["after"] for r in self.srv.requests], [0, 1000, 1000, 2000])

    def test_a_refused_page_fails_the_task(self):
        got = []

        def reduce(ctx, results):
            for r in results:
                got.append(r)
            return "sum of what arrived"

        self.srv.answer = lambda req: self.srv.page(req) if req["after"] == 0 else {
            "ok": False, "code": "REFUSED", "error": "results: task 50 is not running on this worker"}
        final = self.run_reduce(reduce)
        self.assertEqual(final["status"], protocol.FAILED)
        self.assertIn("reading the results of task 50 after task 1000: the server refused to read results: "
                      "results: task 50 is not running on this worker", final["result"])
        self.assertEqual(len(got), 1000)

    def test_a_processor_that_swallows_the_error_fails_all_the_same(self):
        def reduce(ctx, results):
            total = 0
            try:
                for r in results:
                    total += 1
            except jobwheel.ResultsError:
                pass
            return "counted %d" % total

        self.srv.answer = lambda req: self.srv.page(req) if req["after"] < 2000 else {"ok": False, "error": "gone"}
        final = self.run_reduce(reduce)
        self.assertEqual(final["status"], protocol.FAILED)
        self.assertIn("the server refused to read results: gone (the processor went on without them)", final["result"])

    def test_a_server_that_does_not_answer(self):
        self.w.map_timeout = 0.2
        self.srv.answer = lambda req: None
        final = self.run_reduce(lambda ctx, rs: "sum %d" % sum(1 for _ in rs))
        self.assertEqual(final["status"], protocol.FAILED)
        self.assertIn("the server did not answer within 200ms", final["result"])

    def test_a_stop_while_waiting_for_a_page(self):
        self.srv.answer = lambda req: None
        self.w.register("mr", lambda ctx: "unused", reduce=lambda ctx, rs: "sum %d" % sum(1 for _ in rs))
        self.w._accept(dispatch(reduce_task()))
        deadline = time.monotonic() + FAILSAFE
        while not self.srv.requests and time.monotonic() < deadline:
            self.srv.pump()
            time.sleep(0.005)
        self.w._stop_tasks({"instanceId": 150, "reason": "enough"})
        final = self.srv.final(50)
        self.assertEqual(final["status"], protocol.STOPPED)
        self.assertEqual(self.w._outbox.take(lambda: 999), [], "the abandoned request is not sent again")

    def test_list_style_reduces_still_work(self):
        def reduce(ctx, results):
            assert results  # bool
            squares_ = [r for r in results[1:] if r.success]  # slicing reads them all, once
            return "%d results, first %s, last %s, sum %d" % (
                len(results), results[0].name, results[-1].result, sum(int(r.result) for r in squares_))

        final = self.run_reduce(reduce)
        self.assertEqual(final["result"], "2501 results, first ROOT, last %d, sum %d" % (self.N ** 2, self.SUM))
        # bool() read the first page; slicing read the three into a list,
        # which len() and indexing then use.
        self.assertEqual([r["after"] for r in self.srv.requests], [0, 0, 1000, 2000])

    def test_len_counts_without_keeping(self):
        def reduce(ctx, results):
            n = len(results)
            assert results._list is None  # counted, not kept
            return "%d" % n

        self.assertEqual(self.run_reduce(reduce)["result"], "2501")

    def test_post_without_a_post_process_counts_in_one_pass(self):
        self.srv.results = [{"taskId": i, "name": "BROADCAST %d/3" % (i - 1), "success": i != 2, "result": "r"}
                            for i in range(1, 4)]
        self.w.register("b", lambda ctx: "unused")
        self.w._accept(dispatch(task(60, "b", kind="POST", name="POST", executionMode="BROADCAST", resultsPaged=True,
                                     resultCount=3)))
        final = self.srv.final(60)
        self.assertEqual(final["result"], "no post-process; 2 of 3 tasks succeeded")
        self.assertEqual([r["after"] for r in self.srv.requests], [0])

    def test_results_in_the_dispatch_are_not_read_from_the_server(self):
        self.w.register("mr", lambda ctx: "unused", reduce=lambda ctx, rs: "%d %r" % (len(rs), rs.paged))
        t = reduce_task(results=squares(3))
        del t["resultsPaged"], t["resultCount"]
        self.w._accept(dispatch(t))
        self.assertEqual(self.srv.final(50)["result"], "4 False")
        self.assertEqual(self.srv.requests, [])


class BackoffTest(unittest.TestCase):
    def test_full_jitter_doubling_up_to_the_cap(self):
        w = new_worker()
        for n, cap in ((0, 0.2), (1, 0.4), (3, 1.6), (4, 3.0), (10, 3.0)):
            delays = [w._backoff(n) for _ in range(200)]
            self.assertTrue(all(0 < d <= cap for d in delays), (n, max(delays)))
            self.assertGreater(max(delays), cap / 2)
            self.assertGreater(len(set(delays)), 150)


if __name__ == "__main__":
    unittest.main()
