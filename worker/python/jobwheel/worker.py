"""The worker: configuration, processors, the connection loop, sessions and
running tasks.

The connection loop runs one session at a time: discover the owner of the
app (or take the server a redirect named), open the websocket, hello →
welcome, then serve with a reader thread and a writer (the loop's own
thread) until the connection ends. The outbox and the running tasks outlive
sessions; at the end of each, what was not acknowledged is queued again.

Retry policy (docs/protocol.md §13.2): a refused secret ends run(); a
redirect or NOT_OWNER goes to the new owner at once (twice; then backs
off, in case servers disagree); anything else waits a full-jitter
exponential back-off (0.2 s doubling up to 3 s), reset by each welcome.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib

import itertools
import json
import logging
import os
import random
import shutil
import socket
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, Literal, Mapping, NoReturn, TypedDict

from . import protocol, websocket
from .jobs import JOB_REFUSED, JOB_UNCHANGED, MAX_DECLARED_JOBS, Job, JobChange
from .outbox import Outbox, OutboxClosed
from .protocol import JSONObject, WireReport, WireTask
from .task import PreProcessor, Processor, ResultsProcessor, ShuttingDown, Stopped, TaskContext, TimedOut

if TYPE_CHECKING:
    import types

SDK_VERSION_NUMBER = "0.1.0"
SDK_VERSION = "jobwheel-python/" + SDK_VERSION_NUMBER

#: The levels of task log lines, lowest first (Worker's task_log_level).
LogLevel = Literal["DEBUG", "INFO", "WARN", "ERROR"]

_LEVELS = ["DEBUG", "INFO", "WARN", "ERROR"]

__all__ = ["Worker", "ConfigError", "AuthError", "SDK_VERSION", "LogLevel"]


class ConfigError(ValueError):
    """A setting is wrong: ``field`` names it (or its environment
    variable), ``reason`` says why."""

    field: str
    reason: str

    def __init__(self, field: str, reason: str) -> None:
        super().__init__("%s: %s" % (field, reason))
        self.field = field
        self.reason = reason


class AuthError(Exception):
    """The server refused the app secret; run() does not retry then: a
    wrong secret does not fix itself."""


class _ServerError(Exception):
    code: str

    def __init__(self, code: str, message: str) -> None:
        super().__init__("server error %s: %s" % (code, message or "no reason given"))
        self.code = code


class _Redirected(Exception):
    server: str

    def __init__(self, server: str, reason: str) -> None:
        where = "to " + server if server else "(no server named; discovering again)"
        super().__init__("redirected %s: %s" % (where, reason or "no reason given"))
        self.server = server


class _Malformed(Exception):
    """The server sent a frame the worker cannot use."""


class _Processor:
    fn: Processor
    pre: PreProcessor | None
    post: ResultsProcessor | None
    reduce: ResultsProcessor | None

    def __init__(self, fn: Processor, pre: PreProcessor | None, post: ResultsProcessor | None,
                 reduce: ResultsProcessor | None) -> None:
        self.fn, self.pre, self.post, self.reduce = fn, pre, post, reduce


class _Running:
    """A task between its acceptance and the end of its processor. A task
    dispatched with startAt in the future (protocol feature start.at) is
    held first: accepted and listed as running, but not started."""

    task: WireTask
    ctx: TaskContext
    final_sent: bool
    held: bool
    unstarted_end: tuple[str, str, str] | None
    wake: threading.Event

    def __init__(self, task: WireTask, ctx: TaskContext, held: bool) -> None:
        self.task = task
        self.ctx = ctx
        self.final_sent = False  # no longer listed as running by itself
        # Both under the worker's lock: held until the task starts, and how
        # it ends instead (status, result, reason) when it ends still held.
        self.held = held
        self.unstarted_end = None
        self.wake = threading.Event()  # ends the hold early: unstarted_end is set


def _env_list(v: str | None) -> list[str]:
    return [s.strip() for s in (v or "").split(",") if s.strip()]


class Worker:
    """A jobwheel worker for one app: register processors, then run().

    ::

        w = Worker("orders", secret, ["http://localhost:7700"])
        w.register("sync-orders", lambda ctx: "synced %s" % ctx.params)
        w.run()  # blocks until stop(); reconnects by itself

    Settings (besides app, secret and servers): ``tags``; ``slots`` (tasks
    at once, default 4 × CPUs); ``name`` (default the host name; the wire
    workerId is name plus a random suffix, new in each process); ``host``;
    ``version``; ``work_dir`` (its free space is reported); ``logger`` (the
    worker's own log, default logging.getLogger("jobwheel"));
    ``task_log_level`` (the lowest level of task lines shipped, default all);
    ``max_buffered_log_lines`` (20,000: beyond, the oldest are dropped and
    counted); ``max_buffered_reports`` (10,000: beyond, finishing tasks
    wait); ``flush_interval`` (0.05 s); ``map_timeout`` (30 s);
    ``shutdown_timeout`` (10 s); ``abandon_after`` (5 s: how long a
    cancelled processor may take before its end is reported anyway);
    ``discover_timeout`` (10 s). Bad values raise ConfigError naming the
    setting.

    Jobs declared in code: ``job_set`` names the set (e.g. the service's
    name) and ``jobs`` lists its Jobs, each run by a GO processor. On every
    connect the server creates or updates them, marks them managed by the
    set, and disables (never deletes) the set's jobs no longer declared;
    ``jobs_dry_run`` has it only say what it would change. What it did is
    ``job_changes`` (and the worker's log). Every worker of a service
    should declare the same set.
    """

    app: str
    secret: str
    servers: list[str]
    tags: list[str]
    slots: int
    name: str
    host: str
    version: str
    work_dir: str
    log: logging.Logger
    task_log_level: LogLevel | None
    flush_interval: float
    map_timeout: float
    shutdown_timeout: float
    abandon_after: float
    discover_timeout: float
    job_set: str
    jobs: list[Job]
    jobs_dry_run: bool
    #: the wire workerId: name plus a random suffix
    worker_id: str
    _outbox: Outbox
    _lock: threading.Lock
    _processors: dict[str, _Processor]
    _running: dict[int, _Running]  # by task id
    _busy: int
    _epoch: int
    _closing: bool
    _learned: list[str]  # servers named by the last welcome or discovery
    _redirect_to: str
    _rotate: int
    _connected: bool
    _started: bool
    _stop: threading.Event
    _loop_stop: threading.Event
    _unreported: int
    _reported: threading.Condition
    _session: _Session | None
    _job_changes: list[JobChange] | None
    _backoff_min: float
    _backoff_max: float

    def __init__(self, app: str, secret: str, servers: str | Iterable[str], *, tags: Iterable[str] = (),
                 slots: int | None = None, name: str | None = None, host: str | None = None,
                 version: str | None = None, work_dir: str | None = None, logger: logging.Logger | None = None,
                 task_log_level: LogLevel | None = None, max_buffered_log_lines: int = 20000,
                 max_buffered_reports: int = 10000, flush_interval: float = 0.05, map_timeout: float = 30.0,
                 shutdown_timeout: float = 10.0, abandon_after: float = 5.0, discover_timeout: float = 10.0,
                 job_set: str = "", jobs: Iterable[Job] = (), jobs_dry_run: bool = False) -> None:
        hostname = socket.gethostname() or "worker"
        if isinstance(servers, str):
            servers = _env_list(servers)
        self.app = app
        self.secret = secret
        self.servers = [s.rstrip("/") for s in servers or ()]
        self.tags = list(tags or ())
        self.slots = min(4 * (os.cpu_count() or 1), 10000) if slots is None else slots
        self.name = name or hostname
        self.host = host or hostname
        self.version = version or SDK_VERSION
        self.work_dir = work_dir or tempfile.gettempdir()
        self.log = logger or logging.getLogger("jobwheel")
        self.task_log_level = task_log_level
        self.flush_interval = flush_interval
        self.map_timeout = map_timeout
        self.shutdown_timeout = shutdown_timeout
        self.abandon_after = abandon_after
        self.discover_timeout = discover_timeout
        self.job_set = job_set
        self.jobs = list(jobs or ())
        self.jobs_dry_run = jobs_dry_run
        self._validate(max_buffered_log_lines, max_buffered_reports)
        self.worker_id = "%s-%s" % (self.name, os.urandom(6).hex())
        self._outbox = Outbox(self.log, max_buffered_log_lines, max_buffered_reports)
        self._lock = threading.Lock()
        self._processors = {}
        self._running = {}
        self._busy = 0  # slots taken: tasks not yet reported, and abandoned ones
        self._epoch = 0
        self._closing = False
        self._learned = []
        self._redirect_to = ""
        self._rotate = 0
        self._connected = False
        self._started = False
        self._stop = threading.Event()       # stop() was called
        self._loop_stop = threading.Event()  # the connection loop must end
        self._unreported = 0                 # tasks whose final report is not queued yet
        self._reported = threading.Condition(self._lock)
        self._session = None
        self._job_changes = None  # the last welcome's answer to the declared jobs
        # Shorter in tests.
        self._backoff_min, self._backoff_max = 0.2, 3.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **settings: Any) -> Worker:
        """A Worker configured from JOBWHEEL_SERVERS (default
        http://localhost:7700), JOBWHEEL_APP, JOBWHEEL_APP_SECRET,
        JOBWHEEL_WORKER_TAGS, JOBWHEEL_WORKER_SLOTS and JOBWHEEL_WORKER_NAME;
        keyword settings win. A bad value raises ConfigError naming the
        variable."""
        env = os.environ if environ is None else environ
        kw: dict[str, Any] = {
            "app": env.get("JOBWHEEL_APP", ""),
            "secret": env.get("JOBWHEEL_APP_SECRET", ""),
            "servers": _env_list(env.get("JOBWHEEL_SERVERS") or "http://localhost:7700"),
            "tags": _env_list(env.get("JOBWHEEL_WORKER_TAGS")),
            "name": env.get("JOBWHEEL_WORKER_NAME") or None,
        }
        if env.get("JOBWHEEL_WORKER_SLOTS"):
            try:
                kw["slots"] = int(env["JOBWHEEL_WORKER_SLOTS"])
            except ValueError:
                raise ConfigError("JOBWHEEL_WORKER_SLOTS", "%r is not a number" % env["JOBWHEEL_WORKER_SLOTS"])
        kw.update(settings)
        names = {"app": "JOBWHEEL_APP", "secret": "JOBWHEEL_APP_SECRET", "servers": "JOBWHEEL_SERVERS",
                 "tags": "JOBWHEEL_WORKER_TAGS", "slots": "JOBWHEEL_WORKER_SLOTS", "name": "JOBWHEEL_WORKER_NAME"}
        try:
            return cls(**kw)
        except ConfigError as e:
            field = e.field.split("[")[0]
            if field in names and field not in settings:
                raise ConfigError(names[field], e.reason) from None
            raise

    def _validate(self, max_logs: int, max_reports: int) -> None:
        def bad(field: str, reason: str) -> NoReturn:
            raise ConfigError(field, reason)

        if not isinstance(self.app, str) or not self.app.strip():
            bad("app", "is empty; set the name of the app this worker serves")
        if not self.secret:
            bad("secret", "is empty; set the app secret (JOBWHEEL_APP_SECRET), shown when the app was created")
        if not self.servers:
            bad("servers", "is empty; give at least one server URL such as http://localhost:7700")
        for i, s in enumerate(self.servers):
            u = urllib.parse.urlsplit(s)
            if u.scheme not in ("http", "https") or not u.hostname:
                bad("servers[%d]" % i, "%r is not an http:// or https:// URL such as http://localhost:7700" % s)
        if len(self.name) > 100:
            bad("name", "is %d characters; at most 100" % len(self.name))
        if not isinstance(self.slots, int) or not 1 <= self.slots <= 10000:
            bad("slots", "%r is not between 1 and 10000" % (self.slots,))
        if len(self.tags) > 64:
            bad("tags", "%d tags; at most 64" % len(self.tags))
        for i, t in enumerate(self.tags):
            if not isinstance(t, str) or not t.strip():
                bad("tags[%d]" % i, "is empty")
        for field, v in (("max_buffered_log_lines", max_logs), ("max_buffered_reports", max_reports)):
            if not isinstance(v, int) or v < 1:
                bad(field, "%r is not a positive number" % (v,))
        for field in ("flush_interval", "map_timeout", "shutdown_timeout", "abandon_after", "discover_timeout"):
            v = getattr(self, field)
            if not isinstance(v, (int, float)) or v <= 0:
                bad(field, "%r is not a positive number of seconds" % (v,))
        if not os.path.isdir(self.work_dir):
            bad("work_dir", "%r is not a directory" % self.work_dir)
        # As the Go SDK's Config.Validate; the server checks the rest (names,
        # schedules, limits) and refuses the hello with BAD_FRAME naming it.
        if not isinstance(self.job_set, str):
            bad("job_set", "%r is not a str" % (self.job_set,))
        if not isinstance(self.jobs_dry_run, bool):
            bad("jobs_dry_run", "%r is not a bool" % (self.jobs_dry_run,))
        if not self.job_set and (self.jobs or self.jobs_dry_run):
            bad("job_set", "is empty; name the set the declared jobs belong to (e.g. the service's name)")
        if len(self.jobs) > MAX_DECLARED_JOBS:
            bad("jobs", "%d jobs; at most %d" % (len(self.jobs), MAX_DECLARED_JOBS))
        for i, j in enumerate(self.jobs):
            if not isinstance(j, Job):
                bad("jobs[%d]" % i, "%r is not a jobwheel.Job" % (j,))
            p = j.problem()
            if p:
                bad("jobs[%d].%s" % (i, p[0]), p[1])

    # Processors.

    def register(self, name: str, fn: Processor, *, pre: PreProcessor | None = None,
                 post: ResultsProcessor | None = None, reduce: ResultsProcessor | None = None) -> None:
        """Makes fn the GO processor called name: tasks whose job has
        processorType GO and processor name run it.

        ``fn(ctx)`` runs ROOT, BROADCAST and MAP tasks and returns the
        task's result (a str, or None for ""); raising fails the task with
        the exception's text. BROADCAST jobs may add ``pre(ctx)`` (once
        before; raising fails the instance) and ``post(ctx, results)``
        (once after, with every task's TaskResult; returns the result);
        MAP_REDUCE jobs need ``reduce(ctx, results)``. Processors
        registered while the worker runs are announced at its next
        connection.
        """
        if not isinstance(name, str) or not name.strip():
            raise ValueError("register: empty processor name")
        if not callable(fn):
            raise TypeError("register %s: the processor is not callable" % name)
        with self._lock:
            if name in self._processors:
                raise ValueError("register: processor %s registered twice" % name)
            self._processors[name] = _Processor(fn, pre, post, reduce)

    # Running.

    @property
    def connected(self) -> bool:
        with self._lock:
            return self._connected

    @property
    def job_changes(self) -> list[JobChange] | None:
        """What the server did with the declared jobs (``jobs``) at the last
        connect, or in a dry run would do: a list of JobChange(name,
        action, fields); None before the first connect or without a
        job_set."""
        with self._lock:
            return None if self._job_changes is None else list(self._job_changes)

    def stop(self) -> None:
        """Asks run() to return: no new tasks, running ones are cancelled
        and reported, ones held until their start time (start.at) handed
        back unstarted, and what is queued is sent (within shutdown_timeout).
        Safe from a signal handler and from any thread."""
        self._stop.set()

    def run(self) -> None:
        """Connects and runs tasks until stop() (returns None) or the server
        refuses the secret (raises AuthError), reconnecting by itself."""
        with self._lock:
            if self._started:
                raise RuntimeError("Worker.run called twice")
            self._started = True
        outcome: dict[str, BaseException] = {}
        loop_done = threading.Event()

        def loop() -> None:
            try:
                self._connect_loop()
            except BaseException as e:  # noqa: BLE001 - handed to run()
                outcome["error"] = e
            finally:
                loop_done.set()
                self._stop.set()

        t = threading.Thread(target=loop, name="jobwheel-connection", daemon=True)
        t.start()
        while not self._stop.wait(0.5):
            pass
        self._shutdown(graceful=not loop_done.is_set())
        self._loop_stop.set()
        with self._lock:
            s = self._session
        if s is not None:
            s.end(None)
        t.join()
        self._outbox.close()
        if "error" in outcome:
            raise outcome["error"]

    def _shutdown(self, graceful: bool) -> None:
        with self._lock:
            self._closing = True
            # Held tasks go back at once, even if their startAt falls within
            # the shutdown timeout: started now, they would be cut short.
            handed = 0
            running: list[_Running] = []
            for rt in self._running.values():
                if not rt.held:
                    running.append(rt)
                elif self._end_unstarted_locked(rt, protocol.FAILED, _before_start("handed back", "worker shutting down"),
                                                protocol.REASON_HANDED_BACK):
                    handed += 1
        for rt in running:
            rt.ctx._cancel(ShuttingDown())
        if handed:
            self.log.info("worker stopping: handed back %d tasks held until their start time", handed)
        if not graceful:
            return
        if running:
            self.log.info("worker stopping: cancelled %d running tasks", len(running))
        deadline = time.monotonic() + self.shutdown_timeout
        with self._lock:
            while self._unreported > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.log.warning("worker stopping: tasks still running after the shutdown timeout: %s",
                                     sorted(self._running))
                    return
                self._reported.wait(left)
        while self._outbox.pending():
            if time.monotonic() >= deadline:
                self.log.warning("worker stopping: reports or logs not acknowledged before the shutdown timeout")
                return
            self._outbox.poke()
            time.sleep(0.02)

    def _running_ids(self) -> list[int]:
        """What the server must still consider running: tasks not
        finished, and finished ones whose final report is unacknowledged."""
        # Running tasks first, then the unacked finals: a task whose final
        # report is queued in between is in the second set.
        with self._lock:
            ids = {i for i, rt in self._running.items() if not rt.final_sent}
        unacked = self._outbox.unacked_finals()
        return sorted(ids | unacked)

    def _names(self) -> list[str]:
        with self._lock:
            return sorted(self._processors)

    def _metrics(self) -> JSONObject:
        try:
            load1 = os.getloadavg()[0]
        except OSError:
            load1 = 0.0
        mem = 0
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemAvailable:"):
                        mem = int(line.split()[1]) // 1024
                        break
        except (OSError, ValueError, IndexError):
            pass
        try:
            disk = shutil.disk_usage(self.work_dir).free // (1 << 20)
        except OSError:
            disk = 0
        return {"cpuCores": os.cpu_count() or 0, "load1": load1, "freeMemoryMB": mem, "freeDiskMB": disk}

    def _hello(self) -> JSONObject:
        return {"app": self.app, "workerId": self.worker_id, "host": self.host, "version": self.version,
                "protocol": protocol.VERSION, "tags": self.tags, "processors": self._names(), "types": [],
                "slots": self.slots, "auth": self.secret, "running": self._running_ids(),
                "metrics": self._metrics(), "features": list(protocol.FEATURES), **self._declared()}

    def _declared(self) -> JSONObject:
        """The hello's jobs declared in code, as the Go SDK sends them:
        nothing without a job set; jobs and jobsDryRun only when given."""
        if not self.job_set:
            return {}
        out: JSONObject = {"jobSet": self.job_set}
        if self.jobs:
            out["jobs"] = [j.to_wire() for j in self.jobs]
        if self.jobs_dry_run:
            out["jobsDryRun"] = True
        return out

    # The connection loop.

    def _backoff(self, n: int) -> float:
        d = self._backoff_min
        for _ in range(n):
            if d >= self._backoff_max:
                break
            d *= 2
        d = min(d, self._backoff_max)
        return random.uniform(0, d) or d  # full jitter, in (0, d]

    def _connect_loop(self) -> None:
        fails = 0  # consecutive attempts that did not reach welcome
        while not self._loop_stop.is_set():
            established, err = self._connect_once()
            if self._loop_stop.is_set():
                return
            if isinstance(err, AuthError):
                self.log.error("stopping: %s", err)
                raise err
            fails = 0 if established else fails + 1
            delay = self._backoff(fails)
            rehome = isinstance(err, _Redirected) or isinstance(err, _ServerError) and err.code == protocol.CODE_NOT_OWNER
            if rehome and fails <= 2:
                delay = 0
            what = "disconnected from the server; reconnecting" if established else "connecting to the server failed; retrying"
            self.log.warning("%s in %.3fs: %s", what, delay, err)
            if delay > 0 and self._loop_stop.wait(delay):
                return

    def _connect_once(self) -> tuple[bool, BaseException | None]:
        """Runs one session: (established, why it ended)."""
        with self._lock:
            target, self._redirect_to = self._redirect_to, ""
        try:
            if not target:
                target = self._discover()
            url = _connect_url(target)
            ws = websocket.connect(url, timeout=15.0, max_message=protocol.MAX_FRAME_BYTES)
        except (OSError, websocket.WebSocketError, ValueError, _DiscoveryError) as e:
            return False, e
        s = _Session(self, ws, url)
        with self._lock:
            self._session = s
        try:
            try:
                welcome = s.handshake()
            except Exception as e:  # noqa: BLE001 - every failure is why the attempt ended
                ws.abort()
                return False, e
            if welcome is None:  # stopping
                ws.abort()
                return False, None
            self._welcomed(welcome, url)
            try:
                return True, s.serve(welcome)
            finally:
                with self._lock:
                    self._connected = False
                self._outbox.requeue()
        finally:
            with self._lock:
                self._session = None

    def _welcomed(self, welcome: JSONObject, url: str) -> None:
        epoch = welcome.get("epoch") or 0
        with self._lock:
            if epoch < self._epoch:
                self.log.warning("the server's epoch %d is older than %d, seen before; its dispatches will be rejected",
                                 epoch, self._epoch)
            self._epoch = max(self._epoch, epoch)
            if welcome.get("servers"):
                self._learned = list(welcome["servers"])
            self._connected = True
            changes = [JobChange(c.get("name") or "", c.get("action") or "", list(c.get("fields") or ()),
                                 c.get("error") or "")
                       for c in welcome.get("jobChanges") or ()]
            if self.job_set:
                self._job_changes = changes
        self.log.info("connected to %s (server %s, epoch %d)", url, welcome.get("serverId"), epoch)
        for c in changes:
            if c.action == JOB_REFUSED:
                # A job of that name this set does not manage: left alone.
                self.log.warning("declared job %s of set %s refused: %s", c.name, self.job_set, c.error)
                continue
            if c.action != JOB_UNCHANGED or self.jobs_dry_run:
                self.log.info("declared job %s of set %s: %s%s%s", c.name, self.job_set, c.action,
                              " " + ",".join(c.fields) if c.fields else "", " (dry run)" if self.jobs_dry_run else "")

    def _server_list(self) -> list[str]:
        with self._lock:
            out: list[str] = []
            for s in self.servers + self._learned:
                s = s.rstrip("/")
                if s and s not in out:
                    out.append(s)
            if out:
                k = self._rotate % len(out)
                out = out[k:] + out[:k]
                self._rotate += 1
            return out

    def _discover(self) -> str:
        errs: list[str] = []
        for base in self._server_list():
            try:
                return self._discover_at(base)
            except _DiscoveryError as e:
                errs.append(str(e))
            if self._loop_stop.is_set():
                break
        raise _DiscoveryError("discovery failed: " + "; ".join(errs))

    def _discover_at(self, base: str) -> str:
        url = base + protocol.DISCOVER_PATH + "?app=" + urllib.parse.quote(self.app, safe="")
        host = urllib.parse.urlsplit(base).hostname or ""
        # Like Go's net/http: the environment's proxy, but never for loopback.
        handlers: list[urllib.request.BaseHandler] = [urllib.request.ProxyHandler({})] if _loopback(host) else []
        opener = urllib.request.build_opener(*handlers)
        try:
            # Discovery shows the app's secret, as the hello does: a server
            # tells nobody else where an app lives (docs/protocol.md §2.1).
            headers = {"Accept": "application/json", "Authorization": "Bearer " + self.secret}
            with opener.open(urllib.request.Request(url, headers=headers),
                             timeout=self.discover_timeout) as resp:
                body = resp.read(1 << 20)
        except urllib.error.HTTPError as e:
            text = e.read(1 << 10).decode("utf-8", "replace").strip()
            raise _DiscoveryError("GET %s: HTTP %d: %s" % (url, e.code, protocol.truncate(text, 300)))
        except (urllib.error.URLError, OSError) as e:
            raise _DiscoveryError("GET %s: %s" % (url, getattr(e, "reason", e)))
        try:
            d = json.loads(body)
            server = d.get("server")
            servers = d.get("servers") or []
        except (ValueError, AttributeError) as e:
            raise _DiscoveryError("GET %s: bad answer: %s" % (url, e))
        if not isinstance(server, str) or not server:
            raise _DiscoveryError("GET %s: no server owns app %r yet" % (url, self.app))
        if isinstance(servers, list) and servers:
            with self._lock:
                self._learned = [s for s in servers if isinstance(s, str)]
        return server

    def _server_error(self, body: JSONObject) -> Exception:
        """The error an error frame from the server stands for."""
        code, message = body.get("code") or "", body.get("message") or ""
        if code == protocol.CODE_AUTH:
            return AuthError("the server refused the app secret for app %r: %s" % (self.app, message or "no reason given"))
        return _ServerError(code, message)

    # Tasks.

    def _lookup_locked(self, t: WireTask) -> tuple[_Processor | None, str]:
        kind = t.get("kind")
        if kind not in protocol.KINDS:
            return None, "unknown task kind %r" % kind
        if t.get("processorType") != "GO":
            return None, "processor type %r is not supported by worker %s" % (t.get("processorType"), self.worker_id)
        p = self._processors.get(t.get("processor") or "")  # "" is no processor's name
        if p is None:
            return None, "no GO processor named %r is registered on worker %s" % (t.get("processor"), self.worker_id)
        return p, ""

    def _accept(self, d: JSONObject) -> JSONObject:
        """Decides, for each task of a dispatch, to run it or reject it,
        and starts the accepted ones; returns the ack body."""
        accepted: list[int] = []
        rejected: list[JSONObject] = []
        ack: JSONObject = {"ok": True, "accepted": accepted, "rejected": rejected}
        app, epoch = d.get("app") or "", d.get("epoch") or 0
        with self._lock:
            stale = epoch < self._epoch
            if not stale:
                self._epoch = epoch
            for t in d.get("tasks") or ():
                tid = t.get("taskId") or 0
                p, reason, full = None, "", False
                if app and app != self.app:
                    reason = "dispatch is for app %r; worker %s serves %r" % (app, self.worker_id, self.app)
                elif stale:
                    reason = "stale epoch %d: worker %s has seen epoch %d of app %r" % (epoch, self.worker_id, self._epoch, self.app)
                elif self._closing:
                    reason = "worker %s is shutting down" % self.worker_id
                elif tid in self._running:
                    accepted.append(tid)  # sent again (an ack was lost): it runs already, once
                    continue
                else:
                    p, reason = self._lookup_locked(t)
                    if not reason and self._busy >= self.slots:
                        reason = "no free slot: worker %s runs %d tasks, its limit" % (self.worker_id, self.slots)
                        full = True
                if reason or p is None:
                    rejection: JSONObject = {"taskId": tid, "reason": reason}
                    if full:
                        rejection["code"] = protocol.REJECT_FULL  # not the task's fault: the server sends it again
                    rejected.append(rejection)
                    continue
                accepted.append(tid)
                self._start_locked(t, p)
        if rejected:
            self.log.warning("rejected dispatched tasks: %s", rejected)
        return ack

    def _start_locked(self, t: WireTask, p: _Processor) -> None:
        ctx = TaskContext(self, t)
        held = ctx.start_at is not None and ctx.start_at > datetime.datetime.now(datetime.timezone.utc)
        rt = _Running(t, ctx, held)
        # A held task takes its slot and is listed as running from here, as
        # a running one: the server counts it as this worker's (§8.6).
        self._running[ctx.task_id] = rt
        self._busy += 1
        self._unreported += 1
        th = threading.Thread(target=self._task, args=(rt, p), name="jobwheel-task-%d" % ctx.task_id, daemon=True)
        th.start()

    def _task(self, rt: _Running, p: _Processor) -> None:
        if not rt.held:
            self._execute(rt, p)
            return
        started = self._hold(rt)
        if started is not None:
            self._execute(rt, p, started)

    def _hold(self, rt: _Running) -> datetime.datetime | None:
        """Waits until the held task's startAt and returns the time it
        starts (not before startAt, by the wall clock); or, when it ends
        before (a stop, a take-back, the worker stopping, its deadline),
        reports that and returns None."""
        ctx = rt.ctx
        start_at = ctx.start_at
        assert start_at is not None
        until = start_at if ctx.deadline is None else min(start_at, ctx.deadline)
        while True:
            now = datetime.datetime.now(datetime.timezone.utc)
            # A timed wait, woken early by an end: no polling. It measures
            # on the monotonic clock, startAt is on the wall clock; if the
            # two drifted, the loop waits the rest.
            if now < until and rt.wake.wait(min((until - now).total_seconds(), threading.TIMEOUT_MAX)):
                break
            now = datetime.datetime.now(datetime.timezone.utc)
            with self._lock:
                if rt.unstarted_end is not None:
                    break
                if ctx.deadline is not None and now >= ctx.deadline:
                    # A server should not send it so; it is not run at all.
                    why = "deadline %s, start time %s" % (protocol.format_time(ctx.deadline), protocol.format_time(start_at))
                    self._end_unstarted_locked(rt, protocol.FAILED, _before_start("timed out", why), protocol.REASON_TIMEOUT)
                    break
                if now >= start_at:
                    rt.held = False
                    return now
        self._report_unstarted(rt)
        return None

    def _end_unstarted_locked(self, rt: _Running, status: str, result: str, reason: str) -> bool:
        """Ends a task still held, without running it; its own thread
        reports it. False if it has started, or is ending already."""
        if not rt.held or rt.unstarted_end is not None:
            return False
        rt.unstarted_end = (status, result, reason)
        rt.wake.set()
        return True

    def _report_unstarted(self, rt: _Running) -> None:
        ctx = rt.ctx
        with self._lock:
            assert rt.unstarted_end is not None
            status, result, reason = rt.unstarted_end
            self._busy -= 1  # free from here, as a finishing task's (_execute)
        body: WireReport = {"taskId": ctx.task_id, "instanceId": ctx.instance_id, "status": status,
                            "result": protocol.truncate(result, protocol.MAX_RESULT_BYTES), "at": protocol.format_time()}
        if reason:
            body["reason"] = reason
        self._report(body)
        with self._lock:
            # Listed as running until its report is queued, as in _execute;
            # gone from _running at once, so that the server can send it
            # here again (handed back) and have it run.
            rt.final_sent = True
            self._unreported -= 1
            self._reported.notify_all()
            if self._running.get(ctx.task_id) is rt:
                del self._running[ctx.task_id]
        self.log.info("task %d (instance %d, %s) ended %s before it started: %s", ctx.task_id, ctx.instance_id,
                      ctx.kind, status, protocol.truncate(result, 200))

    def _stop_tasks(self, s: JSONObject) -> None:
        """Cancels the tasks a stop frame names: the task ids given (with
        instanceId 0: whatever their instance), or with none every task of
        the instance. A task still held ends without running; with
        unstarted (a take-back), only those: started ones run on."""
        inst, ids, reason = s.get("instanceId") or 0, s.get("taskIds") or [], s.get("reason") or ""
        unstarted = s.get("unstarted") is True
        cancel: list[_Running] = []
        with self._lock:
            matched = [rt for tid, rt in self._running.items()
                       if (ids and tid in ids and (inst == 0 or rt.ctx.instance_id == inst))
                       or (not ids and inst != 0 and rt.ctx.instance_id == inst)]
            for rt in matched:
                if rt.held:
                    if unstarted:
                        self._end_unstarted_locked(rt, protocol.FAILED, _before_start("handed back", reason),
                                                   protocol.REASON_HANDED_BACK)
                    else:
                        self._end_unstarted_locked(rt, protocol.STOPPED, _before_start("stopped", reason), "")
                elif not unstarted:
                    cancel.append(rt)
        for rt in cancel:
            rt.ctx._cancel(Stopped(reason))

    def _report(self, body: WireReport) -> None:
        try:
            self._outbox.add_report(body)
        except OutboxClosed:
            self.log.error("task report lost: the worker has stopped (task %s, %s)", body["taskId"], body["status"])

    def _task_line(self, instance_id: int, task_id: int, level: str, text: str) -> None:
        if self.task_log_level is None or _LEVELS.index(level) >= _LEVELS.index(self.task_log_level):
            self._outbox.add_log({"instanceId": instance_id, "taskId": task_id, "time": protocol.format_time(),
                                  "level": level, "text": protocol.truncate(text, protocol.MAX_LOG_LINE_BYTES)})
        lvl = {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING}.get(level, logging.ERROR)
        if self.log.isEnabledFor(lvl):
            self.log.log(lvl, "[instance %d task %d] %s", instance_id, task_id, text)


    def _execute(self, rt: _Running, p: _Processor, started: datetime.datetime | None = None) -> None:
        ctx = rt.ctx
        start = time.monotonic()
        self._report({"taskId": ctx.task_id, "instanceId": ctx.instance_id, "status": protocol.RUNNING,
                      "at": protocol.format_time(started)})
        timer = None
        if ctx.deadline is not None:
            left = max(ctx.deadline.timestamp() - time.time(), 0)
            timer = threading.Timer(left, ctx._cancel, args=(TimedOut(time.monotonic() - start + left),))
            timer.daemon = True
            timer.start()
        out: _Outcome = {}
        settled = threading.Event()  # the processor returned
        ended = threading.Event()    # it returned, or the task was cancelled

        def call() -> None:
            try:
                with _traced(ctx):
                    out["result"] = self._call(p, ctx)
            except BaseException as e:  # noqa: BLE001 - a processor's failure fails its task
                out["error"] = e
                out["trace"] = traceback.format_exc()
            finally:
                settled.set()
                ended.set()

        th = threading.Thread(target=call, name="jobwheel-processor-%d" % ctx.task_id, daemon=True)
        th.start()
        ctx._when_cancelled(ended.set)
        ended.wait()
        abandoned = False
        if not settled.is_set():
            # Give the processor a while to notice; then report anyway so
            # the instance does not hang on a processor that ignores it.
            abandoned = not settled.wait(self.abandon_after)
        if timer is not None:
            timer.cancel()
        if "trace" in out and not ctx.cancelled:
            ctx.log.error(out["trace"].rstrip())
        status, result, reason = _classify(ctx, out, abandoned)
        if ctx._results_error is not None and status == protocol.SUCCEEDED:
            # The processor caught the error and returned all the same: its
            # result stands on part of the results, so it must not count.
            status, result = protocol.FAILED, "%s (the processor went on without them)" % ctx._results_error
        if ctx.results.paged and ctx.results.pages_read:
            self.log.info("task %d (instance %d, %s) read its results from the server in %d pages",
                          ctx.task_id, ctx.instance_id, ctx.kind, ctx.results.pages_read)
        try:
            additions, _ = ctx._workflow_additions()
        except ValueError as e:
            additions = None
            if status == protocol.SUCCEEDED:
                status, result = protocol.FAILED, str(e)
        if not abandoned:
            with self._lock:
                # The slot is free from here: the server frees it when it
                # reads the report, and may send the next task before this
                # thread reaches its end.
                self._busy -= 1
        body: WireReport = {"taskId": ctx.task_id, "instanceId": ctx.instance_id, "status": status,
                "result": protocol.truncate(result, protocol.MAX_RESULT_BYTES), "at": protocol.format_time()}
        if reason:
            body["reason"] = reason
        if additions:
            body["workflowContext"] = additions
        self._report(body)
        with self._lock:
            # Only now that the final report is queued (and so among the
            # unacked finals) does the task leave the heartbeat's running
            # list; set before, a heartbeat in between would list it nowhere
            # and the server would run it again.
            rt.final_sent = True
            self._unreported -= 1
            self._reported.notify_all()
        level = logging.DEBUG if ctx.kind == protocol.KIND_MAP and status == protocol.SUCCEEDED else logging.INFO
        self.log.log(level, "task %d (instance %d, %s) ended %s after %.3fs: %s", ctx.task_id, ctx.instance_id,
                     ctx.kind, status, time.monotonic() - start, protocol.truncate(result, 200))
        if abandoned:
            self.log.warning("task %d: the processor did not return after it was cancelled; its slot stays taken until it does",
                             ctx.task_id)
            th.join()
        with self._lock:
            self._running.pop(ctx.task_id, None)
            if abandoned:
                self._busy -= 1

    @staticmethod
    def _call(p: _Processor, ctx: TaskContext) -> str | None:
        kind = ctx.kind
        if kind == protocol.KIND_PRE:
            if p.pre is None:
                return "no pre-process"
            p.pre(ctx)
            return ""
        if kind == protocol.KIND_POST:
            if p.post is None:
                ok = n = 0
                for r in ctx.results:  # one pass: paged results are read once
                    n += 1
                    ok += r.success
                return "no post-process; %d of %d tasks succeeded" % (ok, n)
            return p.post(ctx, ctx.results)
        if kind == protocol.KIND_REDUCE:
            if p.reduce is None:
                raise RuntimeError("processor %r cannot reduce: it was registered without reduce=, which a MAP_REDUCE job needs"
                                   % ctx.processor)
            return p.reduce(ctx, ctx.results)
        return p.fn(ctx)


class _Outcome(TypedDict, total=False):
    """How a processor call ended: its result, or what it raised."""

    result: str | None
    error: BaseException
    trace: str  # the traceback of error


def _traced(ctx: TaskContext) -> ContextManager[object]:
    """The processor's span, under the server's (docs/protocol.md §8.5),
    when the run is traced and the opentelemetry-api package is installed;
    otherwise nothing (ctx.traceparent still passes the server's span on).
    An exception the processor raises ends the span with an error."""
    if not ctx.traceparent:
        return contextlib.nullcontext()
    try:
        # By name: the package is optional, and a type checker of a program
        # without it finds no import to complain about (its modules are Any).
        trace = importlib.import_module("opentelemetry.trace")
        tracecontext = importlib.import_module("opentelemetry.trace.propagation.tracecontext")
    except ImportError:
        return contextlib.nullcontext()
    return _Span(trace, tracecontext.TraceContextTextMapPropagator(), ctx)


class _Span:
    # The opentelemetry-api package is optional, and so are its types: its
    # trace module, propagator and span are Any here.
    _trace: Any
    _propagator: Any
    _ctx: TaskContext
    _cm: Any

    def __init__(self, trace: Any, propagator: Any, ctx: TaskContext) -> None:
        self._trace, self._propagator, self._ctx = trace, propagator, ctx
        self._cm = None

    def __enter__(self) -> Any:
        ctx, trace = self._ctx, self._trace
        parent = self._propagator.extract({"traceparent": ctx.traceparent})
        self._cm = trace.get_tracer("jobwheel").start_as_current_span(
            "process " + ctx.task_name, context=parent, kind=trace.SpanKind.CONSUMER,
            attributes={"jobwheel.instance.id": ctx.instance_id, "jobwheel.task.id": ctx.task_id,
                        "jobwheel.job.id": ctx.job_id, "jobwheel.task.kind": ctx.kind})
        span = self._cm.__enter__()
        carrier: dict[str, str] = {}
        self._propagator.inject(carrier)
        ctx.traceparent = carrier.get("traceparent", ctx.traceparent)
        return span

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: types.TracebackType | None) -> bool | None:
        suppress: bool | None = self._cm.__exit__(exc_type, exc, tb)
        return suppress


def _before_start(what: str, reason: str) -> str:
    """The result of a task that ended held (start.at), never run:
    "stopped before it started: <reason>" and the like."""
    return "%s before it started: %s" % (what, reason) if reason else what + " before it started"


def _text(v: object) -> str:
    return "" if v is None else v if isinstance(v, str) else str(v)


def _with_output(reason: str, out: _Outcome) -> str:
    """The reason a task did not succeed, then whatever its processor
    returned all the same."""
    msg = _text(out.get("result"))
    return reason + "\n" + msg if msg.strip() else reason


def _error_text(e: BaseException) -> str:
    return str(e) or type(e).__name__


def _classify(ctx: TaskContext, out: _Outcome, abandoned: bool) -> tuple[str, str, str]:
    """A final status, result and reason. A stop or a timeout decides over
    what the processor returned: the server has already moved on."""
    cause = ctx._cause
    if isinstance(cause, Stopped):
        return protocol.STOPPED, _with_output(str(cause), out), ""
    if isinstance(cause, TimedOut):
        return protocol.FAILED, _with_output(str(cause), out), protocol.REASON_TIMEOUT
    if isinstance(cause, ShuttingDown):
        if abandoned:
            return protocol.FAILED, "worker shutting down; the task did not return", ""
        if "error" in out:
            return protocol.FAILED, "worker shutting down: " + _error_text(out["error"]), ""
    if "error" in out:
        return protocol.FAILED, _error_text(out["error"]), ""
    return protocol.SUCCEEDED, _text(out.get("result")), ""


class _DiscoveryError(Exception):
    pass


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        import ipaddress

        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _connect_url(base: str) -> str:
    u = urllib.parse.urlsplit(base)
    scheme = {"http": "ws", "ws": "ws", "https": "wss", "wss": "wss"}.get(u.scheme)
    if scheme is None:
        raise ValueError("server URL %r: the scheme must be http or https" % base)
    return urllib.parse.urlunsplit((scheme, u.netloc, u.path.rstrip("/") + protocol.CONNECT_PATH, "", ""))


class _Session:
    """One websocket connection: the handshake, a reader thread, and the
    writer, which runs on the connection loop's thread."""

    HANDSHAKE_TIMEOUT: float = 15.0

    w: Worker
    ws: websocket.WebSocket
    url: str
    _ids: itertools.count[int]
    _ids_lock: threading.Lock
    _ctrl: list[str]  # frames for the writer: acks
    _lock: threading.Lock
    _done: threading.Event
    #: why the session ended (None: the worker is stopping)
    err: BaseException | None
    _final: str | None

    def __init__(self, worker: Worker, ws: websocket.WebSocket, url: str) -> None:
        self.w = worker
        self.ws = ws
        self.url = url
        self._ids = itertools.count(1)
        self._ids_lock = threading.Lock()
        self._ctrl = []  # frames for the writer: acks
        self._lock = threading.Lock()
        self._done = threading.Event()
        self.err = None
        self._final = None  # an error frame to send before closing

    def next_id(self) -> int:
        with self._ids_lock:
            return next(self._ids)

    def end(self, err: BaseException | None, final: str | None = None) -> None:
        """Ends the session once; the writer says goodbye and closes."""
        with self._lock:
            if self._done.is_set():
                return
            self.err, self._final = err, final
            self._done.set()
        self.w._outbox.poke()

    def handshake(self) -> JSONObject | None:
        """Sends hello and returns the welcome body; None if the worker is
        stopping meanwhile. Raises why it failed."""
        w = self.w
        self.ws.send_text(protocol.encode(protocol.HELLO, w._hello(), id=self.next_id()))
        deadline = time.monotonic() + self.HANDSHAKE_TIMEOUT
        while True:
            if w._loop_stop.is_set() or self._done.is_set():
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer to hello from %s within %.0fs" % (self.url, self.HANDSHAKE_TIMEOUT))
            msg = self.ws.recv(timeout=min(left, 0.25))
            if msg is not None:
                break
        kind, data = msg
        if kind != "text" or not isinstance(data, str):
            raise _Malformed("the answer to hello is a binary frame")
        try:
            f = protocol.decode(data)
        except protocol.BadFrame as e:
            raise _Malformed("answer to hello: %s" % e)
        if f.type == protocol.WELCOME:
            return f.body
        if f.type == protocol.ERROR:
            raise w._server_error(f.body)
        if f.type == protocol.REDIRECT:
            with w._lock:
                w._redirect_to = f.body.get("server") or ""
            raise _Redirected(f.body.get("server") or "", f.body.get("reason") or "")
        raise _Malformed("expected welcome, got %s" % f.type)

    def serve(self, welcome: JSONObject) -> BaseException | None:
        """Runs the reader and the writer until the session ends; returns
        why it ended (None: the worker is stopping)."""
        hb = (welcome.get("heartbeatMs") or 0) / 1000.0
        if hb <= 0:
            hb = 5.0
        hb = max(hb, 0.01)
        # The server answers pings; silence for this long means it is gone.
        read_timeout = hb * (protocol.LOST_AFTER_BEATS + 1)
        reader = threading.Thread(target=self._reader, args=(read_timeout,), name="jobwheel-reader", daemon=True)
        reader.start()
        try:
            self._writer(hb)
        except (OSError, websocket.WebSocketError) as e:
            self.end(ConnectionError("writing to %s: %s" % (self.url, e)))
        self._goodbye()
        reader.join(2.0)
        return self.err

    def _send_ctrl(self, text: str) -> None:
        with self._lock:
            if self._done.is_set():
                return
            self._ctrl.append(text)
        self.w._outbox.poke()

    def _reply(self, id: int, body: JSONObject) -> None:
        if id > 0:
            self._send_ctrl(protocol.encode(protocol.ACK, body, re=id))

    def _reader(self, read_timeout: float) -> None:
        w = self.w
        while not self._done.is_set():
            try:
                msg = self.ws.recv(timeout=0.25)
            except websocket.WebSocketError as e:
                self.end(ConnectionError("reading from %s: %s" % (self.url, e)))
                return
            if msg is None:
                if time.monotonic() - self.ws.last_read > read_timeout:
                    self.end(TimeoutError("%s sent nothing for %.1fs" % (self.url, read_timeout)))
                    return
                continue
            kind, data = msg
            if kind != "text" or not isinstance(data, str):
                self._malformed("a binary frame")
                return
            try:
                f = protocol.decode(data)
            except protocol.BadFrame as e:
                self._malformed(str(e))
                return
            b = f.body
            if f.type == protocol.ACK:
                w._outbox.ack(f.re, b)
            elif f.type == protocol.DISPATCH:
                self._reply(f.id, w._accept(b))
            elif f.type == protocol.STOP:
                w.log.info("stop: instance %s, tasks %s: %s", b.get("instanceId"), b.get("taskIds"), b.get("reason"))
                w._stop_tasks(b)
                self._reply(f.id, {"ok": True})
            elif f.type == protocol.REDIRECT:
                with w._lock:
                    w._redirect_to = b.get("server") or ""
                self.end(_Redirected(b.get("server") or "", b.get("reason") or ""))
                return
            elif f.type == protocol.ERROR:
                self.end(w._server_error(b))
                return
            else:  # hello, welcome, heartbeat, report, logs, map: not the server's to send now
                what = "unexpected %s frame" % f.type
                w.log.error("protocol error from the server; reconnecting: %s", what)
                self.end(_Malformed(what), protocol.encode(protocol.ERROR, {"code": protocol.CODE_PROTOCOL, "message": what}))

                return

    def _malformed(self, why: str) -> None:
        """Ends the session after a frame that cannot be decoded, telling
        the server why (docs/protocol.md §3)."""
        self.w.log.error("malformed frame from the server; reconnecting: %s", why)
        final = protocol.encode(protocol.ERROR, {"code": protocol.CODE_BAD_FRAME, "message": "bad frame: " + why})
        self.end(_Malformed(why), final)

    def _writer(self, hb: float) -> None:
        w = self.w
        wake = w._outbox.wake
        now = time.monotonic()
        next_beat = now + hb
        next_flush = now + w.flush_interval
        wake.set()  # send what waited for this connection
        while not self._done.is_set():
            wake.wait(max(min(next_beat, next_flush) - time.monotonic(), 0))
            wake.clear()
            if self._done.is_set():
                return
            with self._lock:
                ctrl, self._ctrl = self._ctrl, []
            for text in ctrl:
                self.ws.send_text(text)
            now = time.monotonic()
            if now >= next_beat:
                self._heartbeat()
                next_beat = now + hb
            self._flush()
            if now >= next_flush:
                next_flush = now + w.flush_interval

    def _heartbeat(self) -> None:
        w = self.w
        self.ws.send_text(protocol.encode(protocol.HEARTBEAT, {"metrics": w._metrics(), "running": w._running_ids()}))
        self.ws.ping(b"jobwheel")

    def _flush(self) -> None:
        w = self.w
        for m in w._outbox.take(self.next_id):
            try:
                text = protocol.encode(m.type, m.body(), id=m.id)
            except (protocol.FrameTooLarge, TypeError, ValueError) as e:
                w._outbox.discard(m.id, e)
                continue
            self.ws.send_text(text)

    def _goodbye(self) -> None:

        with self._lock:
            final, err = self._final, self.err
        if final is not None:
            try:
                self.ws.send_text(final)
            except (OSError, websocket.WebSocketError):
                pass
        if err is None:
            self.ws.close(websocket.CLOSE_NORMAL, "worker shutting down")
        else:
            self.ws.close(websocket.CLOSE_GOING_AWAY, "reconnecting")

