"""Jobs declared in code: what the hello carries, what the worker accepts
as a declaration, what it keeps of the welcome's answer, and how a
declaration the server refuses surfaces. The server's side (created,
updated, disabled) is e2e/jobmodel_test.go's, against a real server with
both SDKs."""

import json
import logging
import os
import shutil
import tempfile
import threading
import unittest
import urllib.parse

import jobwheel
from jobwheel import protocol, websocket

from .test_websocket import Server, frame
from .test_worker import QUIET, new_worker

INVOICES = dict(name="invoices", schedule_type="CRON", schedule_expression="0 0 3 * * ?",
                time_zone="Europe/Berlin", processor="invoices", timeout_ms=600000)


class DeclarationTest(unittest.TestCase):
    def test_hello_carries_the_declared_jobs(self):
        w = new_worker(job_set="billing-service", jobs=[
            jobwheel.Job(**INVOICES),
            jobwheel.Job(name="reminders", schedule_type="API", processor="remind", description="dunning",
                         execution_mode="BROADCAST", params='{"days": 3}', max_instances=2, task_concurrency=4,
                         instance_retries=1, task_retries=2, overlap_policy="QUEUE", max_queued=5, priority=-3,
                         retry_delay_ms=1000, retry_backoff=1.5, retry_delay_max_ms=60000),
        ])
        # Through the encoder, as it goes on the wire.
        hello = json.loads(protocol.encode(protocol.HELLO, w._hello(), id=1))["body"]
        self.assertEqual(hello["jobSet"], "billing-service")
        self.assertNotIn("jobsDryRun", hello)
        # Fields left at their defaults are left out (the server applies the
        # API's), as the Go SDK's omitempty does.
        self.assertEqual(hello["jobs"][0], {"name": "invoices", "scheduleType": "CRON",
                                            "scheduleExpression": "0 0 3 * * ?", "timeZone": "Europe/Berlin",
                                            "processor": "invoices", "timeoutMs": 600000})
        self.assertEqual(hello["jobs"][1], {
            "name": "reminders", "description": "dunning", "scheduleType": "API", "executionMode": "BROADCAST",
            "processor": "remind", "params": '{"days": 3}', "maxInstances": 2, "taskConcurrency": 4,
            "instanceRetries": 1, "taskRetries": 2, "overlapPolicy": "QUEUE", "maxQueued": 5, "priority": -3,
            "retryDelayMs": 1000, "retryBackoff": 1.5, "retryDelayMaxMs": 60000})

    def test_hello_built_again_on_each_connect(self):
        w = new_worker(job_set="billing-service", jobs=[jobwheel.Job(**INVOICES)])
        w.jobs[0].timeout_ms = 60000
        self.assertEqual(w._hello()["jobs"][0]["timeoutMs"], 60000)

    def test_an_empty_set_still_names_it_so_its_jobs_are_disabled(self):
        hello = new_worker(job_set="billing-service")._hello()
        self.assertEqual(hello["jobSet"], "billing-service")
        self.assertNotIn("jobs", hello)

    def test_dry_run(self):
        hello = new_worker(job_set="billing-service", jobs=[jobwheel.Job(**INVOICES)], jobs_dry_run=True)._hello()
        self.assertIs(hello["jobsDryRun"], True)

    def test_no_set_no_fields(self):
        hello = new_worker()._hello()
        for k in ("jobSet", "jobs", "jobsDryRun"):
            self.assertNotIn(k, hello)

    def test_bad_declarations_name_the_setting(self):
        job = jobwheel.Job(**INVOICES)
        cases = [
            (dict(jobs=[job]), "job_set"),
            (dict(jobs_dry_run=True), "job_set"),
            (dict(job_set=7), "job_set"),
            (dict(job_set="s", jobs_dry_run="yes"), "jobs_dry_run"),
            (dict(job_set="s", jobs=[job] * 1001), "jobs"),
            (dict(job_set="s", jobs=[job, {"name": "x"}]), "jobs[1]"),
            (dict(job_set="s", jobs=[jobwheel.Job(**dict(INVOICES, timeout_ms="600000"))]), "jobs[0].timeout_ms"),
            (dict(job_set="s", jobs=[jobwheel.Job(**dict(INVOICES, max_instances=True))]), "jobs[0].max_instances"),
            (dict(job_set="s", jobs=[jobwheel.Job(**dict(INVOICES, schedule_expression=None))]),
             "jobs[0].schedule_expression"),
            (dict(job_set="s", jobs=[job, jobwheel.Job(**dict(INVOICES, retry_backoff=float("nan")))]),
             "jobs[1].retry_backoff"),
        ]
        for change, field in cases:
            with self.assertRaises(jobwheel.ConfigError, msg=field) as cm:
                new_worker(**change)
            self.assertEqual(cm.exception.field, field, change)

    def test_what_the_server_checks_is_left_to_it(self):
        # As the Go SDK: names, schedules, modes and limits are the server's
        # to refuse (BAD_FRAME naming the job), not the worker's.
        w = new_worker(job_set="s", jobs=[jobwheel.Job(name="", schedule_type="SOMETIMES", processor="p"),
                                          jobwheel.Job(name="", schedule_type="CRON", processor="p", max_instances=-1)])
        self.assertEqual(len(w._hello()["jobs"]), 2)

    def test_jobs_from_their_wire_form(self):
        j = jobwheel.Job.from_wire({"name": "invoices", "scheduleType": "CRON", "scheduleExpression": "0 0 3 * * ?",
                                    "timeZone": "Europe/Berlin", "processor": "invoices", "timeoutMs": 600000})
        self.assertEqual(j, jobwheel.Job(**INVOICES))
        self.assertEqual(jobwheel.Job.from_wire(j.to_wire()), j)
        for bad, says in (({"name": "x", "scheduleType": "API", "processor": "p", "timeout": 1}, "'timeout'"),
                          ({"name": "x", "processor": "p"}, "'scheduleType'"),
                          ([], "object")):
            with self.assertRaises(ValueError) as cm:
                jobwheel.Job.from_wire(bad)
            self.assertIn(says, str(cm.exception))


class JobsFileTest(unittest.TestCase):
    def file(self, text):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "jobs.json")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_the_agents_format(self):
        path = self.file('{"set": "billing-service", "dryRun": true, "jobs": [{"name": "invoices", '
                         '"scheduleType": "CRON", "scheduleExpression": "0 0 3 * * ?", "timeZone": "Europe/Berlin", '
                         '"processor": "invoices", "timeoutMs": 600000}]}')
        got = jobwheel.read_jobs_file(path)
        self.assertEqual(got, {"job_set": "billing-service", "jobs": [jobwheel.Job(**INVOICES)], "jobs_dry_run": True})
        w = jobwheel.Worker.from_env({"JOBWHEEL_APP": "billing", "JOBWHEEL_APP_SECRET": "s"}, logger=QUIET, **got)
        self.assertEqual((w._hello()["jobSet"], w._hello()["jobs"][0]["timeoutMs"]), ("billing-service", 600000))

    def test_an_empty_set(self):
        self.assertEqual(jobwheel.read_jobs_file(self.file('{"set": "billing-service", "jobs": []}')),
                         {"job_set": "billing-service", "jobs": [], "jobs_dry_run": False})

    def test_bad_files_say_where_and_why(self):
        for text, says in (('{"jobs": []}', '"set" must name'),
                           ('{"set": "s", "job": []}', "unknown field 'job'"),
                           ('{"set": "s", "jobs": [{"name": "x", "scheduleType": "API", "processor": "p", "x": 1}]}',
                            "jobs[0]: unknown field 'x'"),
                           ('{"set": "s", "dryRun": "no"}', '"dryRun"'),
                           ("{", "Expecting")):
            path = self.file(text)
            with self.assertRaises(jobwheel.ConfigError) as cm:
                jobwheel.read_jobs_file(path)
            self.assertEqual(cm.exception.field, "jobs_file")
            self.assertIn(path, str(cm.exception))
            self.assertIn(says, str(cm.exception))
        with self.assertRaises(jobwheel.ConfigError):
            jobwheel.read_jobs_file("/no/such/jobs.json")


class WelcomeTest(unittest.TestCase):
    def test_job_changes_are_kept(self):
        w = new_worker(job_set="billing-service", jobs=[jobwheel.Job(**INVOICES)])
        self.assertIsNone(w.job_changes)
        body = protocol.decode(json.dumps({"id": 0, "re": 1, "type": "welcome", "body": {
            "serverId": "s1", "epoch": 3, "heartbeatMs": 2000, "jobChanges": [
                {"name": "invoices", "action": "UPDATE", "fields": ["timeoutMs"]},
                {"name": "old", "action": "DISABLE"}]}})).body
        w._welcomed(body, "ws://x/worker/connect")
        self.assertEqual(w.job_changes, [jobwheel.JobChange("invoices", "UPDATE", ["timeoutMs"]),
                                         jobwheel.JobChange("old", "DISABLE", [])])

    def test_without_a_set_there_are_none(self):
        w = new_worker()
        w._welcomed({"serverId": "s1", "epoch": 1}, "ws://x/worker/connect")
        self.assertIsNone(w.job_changes)

    def test_malformed_job_changes_are_a_bad_frame(self):
        for changes, says in (({"name": "x"}, "jobChanges must be a list"),
                              (["x"], "jobChanges[0] must be an object"),
                              ([{"name": 1, "action": "CREATE"}], "jobChanges[0].name"),
                              ([{"name": "x", "action": "UPDATE", "fields": "timeoutMs"}], "jobChanges[0].fields")):
            with self.assertRaises(protocol.BadFrame) as cm:
                protocol.decode(json.dumps({"id": 0, "re": 1, "type": "welcome", "body": {"jobChanges": changes}}))
            self.assertIn(says, str(cm.exception))


class Capture(logging.Handler):
    def __init__(self, on_warning):
        super().__init__(logging.DEBUG)
        self.records = []
        self.on_warning = on_warning

    def emit(self, record):
        self.records.append(record.getMessage())
        if record.levelno >= logging.WARNING:
            self.on_warning()


class RefusedDeclarationTest(unittest.TestCase):
    def test_the_servers_bad_frame_is_logged_and_retried(self):
        """A declaration the server refuses: the hello (with the jobs) is
        answered with error BAD_FRAME naming the job; as in the Go SDK the
        attempt fails with "server error BAD_FRAME: <message>", logged as a
        failed connection that is retried (not an AuthError ending run)."""
        message = 'hello: jobs[0].scheduleExpression: job "invoices": "every day" is not a cron expression'
        got = []

        def script(p):
            _, op, data, _ = p.read_frame()
            got.append((op, json.loads(data)))
            p.send(frame(websocket.OP_TEXT, protocol.encode(protocol.ERROR, {"code": "BAD_FRAME", "message": message},
                                                            re=1).encode()))

        srv = Server(script)
        log = logging.getLogger("jobwheel.test.jobs")
        log.propagate = False
        w = new_worker(logger=log, job_set="billing-service",
                       jobs=[jobwheel.Job(**dict(INVOICES, schedule_expression="every day"))])
        cap = Capture(w._loop_stop.set)
        log.addHandler(cap)
        self.addCleanup(log.removeHandler, cap)
        u = urllib.parse.urlsplit(srv.url)
        w._redirect_to = "http://%s" % u.netloc  # no discovery: straight to the scripted server
        t = threading.Thread(target=w._connect_loop, daemon=True)
        t.start()
        t.join(10)
        self.assertFalse(t.is_alive(), "the connection loop did not stop")
        srv.join(self)
        op, hello = got[0]
        self.assertEqual((op, hello["type"], hello["body"]["jobSet"], hello["body"]["jobs"][0]["scheduleExpression"]),
                         (websocket.OP_TEXT, "hello", "billing-service", "every day"))
        warnings = [r for r in cap.records if r.startswith("connecting to the server failed; retrying")]
        self.assertEqual(len(warnings), 1, cap.records)
        self.assertTrue(warnings[0].endswith(": server error BAD_FRAME: " + message), warnings[0])
        self.assertIsNone(w.job_changes)


if __name__ == "__main__":
    unittest.main()
