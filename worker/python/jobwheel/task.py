"""What a processor gets: TaskContext, its logger, and the results of
other tasks (Results of TaskResult)."""

from __future__ import annotations

import copy
import datetime
import json
import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, Union, overload

from . import protocol
from .outbox import MapChunk, OutboxClosed, PageRequest
from .protocol import JSONObject, WireResult, WireTask

if TYPE_CHECKING:
    from .worker import Worker

__all__ = ["TaskContext", "TaskLogger", "TaskResult", "Results", "MapError", "ResultsError", "Stopped", "TimedOut",
           "ShuttingDown", "CancelCause", "Processor", "PreProcessor", "ResultsProcessor"]


class MapError(Exception):
    """TaskContext.map failed: the server refused the subtasks, did not
    confirm them in time, or the task was cancelled meanwhile. The message
    says which subtasks may already be stored."""


class ResultsError(Exception):
    """Reading a POST or REDUCE task's results from the server failed: the
    server refused (the task is no longer this worker's), did not answer
    within the worker's map_timeout (connections may come and go meanwhile:
    a request is sent again on the next one), the task was cancelled, or
    the worker stopped. The task fails with it, even if the processor
    catches it: a reduce never ends on part of the results silently."""


class TaskResult:
    """A finished task's outcome, as given to post-process and reduce."""

    __slots__ = ("task_id", "name", "success", "result")

    task_id: int
    name: str
    success: bool
    result: str

    def __init__(self, task_id: int, name: str, success: bool, result: str) -> None:
        self.task_id, self.name, self.success, self.result = task_id, name, success, result

    def __repr__(self) -> str:
        return "TaskResult(task_id=%r, name=%r, success=%r, result=%r)" % (
            self.task_id, self.name, self.success, self.result)


#: How many results one request asks for (the protocol's most).
RESULTS_PAGE = protocol.MAX_BATCH


class Results:
    """The results a POST or REDUCE task sees, in task id order: a REDUCE
    task the ROOT's and every MAP task's, a POST task every BROADCAST
    task's; each a TaskResult.

    Iterating is lazy. When the server dispatched the task with
    ``resultsPaged`` (protocol feature results.paged, docs/protocol.md
    §11.1), each iteration reads the results from the server a page of
    1,000 at a time, so a reduce over millions of subtasks keeps only the
    page it is on (and what it keeps itself); otherwise they came inside
    the dispatch. A page that cannot be read raises ResultsError out of
    the loop, and the task fails.

    It also stands in for the list older processors expect: ``len()``
    counts them (when paged, by reading them through once, keeping none),
    and indexing or slicing reads them all into a list once (a list's
    memory, which the caller asked for). ``result_count`` is how many
    finished tasks the server counted when it dispatched the task (for
    progress), or None.
    """

    _ctx: TaskContext
    _paged: bool
    _list: list[TaskResult] | None
    _len: int | None
    #: how many finished tasks the server counted (see above), or None
    result_count: int | None
    pages_read: int

    def __init__(self, ctx: TaskContext, listed: Iterable[WireResult] | None = None, paged: bool = False,
                 result_count: int | None = None) -> None:
        self._ctx = ctx
        self._paged = paged
        if paged:
            self._list, self._len, self.result_count = None, None, result_count
        else:
            items = [_task_result(r) for r in listed or ()]
            self._list, self._len, self.result_count = items, len(items), len(items)
        #: pages read from the server so far (over all iterations)

        self.pages_read = 0

    @property
    def paged(self) -> bool:
        """Whether the results are read from the server in pages."""
        return self._paged

    def __iter__(self) -> Iterator[TaskResult]:
        if self._list is not None:
            return iter(self._list)
        return self._stream()

    def _stream(self) -> Iterator[TaskResult]:
        after, n = 0, 0
        while True:
            page, more = self._ctx._results_page(after, RESULTS_PAGE)
            self.pages_read += 1
            for r in page:
                tr = _task_result(r)
                after = tr.task_id
                n += 1
                yield tr
            if not more or not page:
                break
        self._len = n

    def __len__(self) -> int:
        if self._len is None:
            n = 0
            for _ in self:
                n += 1
            self._len = n
        return self._len

    def __bool__(self) -> bool:
        if self._len is not None:
            return self._len > 0
        for _ in self:
            return True
        return False

    @overload
    def __getitem__(self, i: int) -> TaskResult: ...

    @overload
    def __getitem__(self, i: slice) -> list[TaskResult]: ...

    def __getitem__(self, i: int | slice) -> TaskResult | list[TaskResult]:
        if self._list is None:
            self._list = list(self._stream())
            self._len = len(self._list)
        return self._list[i]

    def __repr__(self) -> str:
        if self._list is not None:
            return "Results(%r)" % (self._list,)
        return "Results(paged, result_count=%r)" % (self.result_count,)


def _task_result(r: WireResult) -> TaskResult:
    return TaskResult(r.get("taskId") or 0, r.get("name") or "", bool(r.get("success")), r.get("result") or "")


# Why a task was cancelled.

class Stopped:
    """The server stopped the task (a stop frame), for reason."""

    reason: str

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __str__(self) -> str:
        return "stopped: " + self.reason if self.reason else "stopped by the server"


class TimedOut:
    """The task's deadline passed, after seconds from its start."""

    after: float

    def __init__(self, after: float) -> None:
        self.after = after

    def __str__(self) -> str:
        return "timed out after %s" % _seconds(self.after)


class ShuttingDown:
    """The worker is stopping."""

    def __str__(self) -> str:
        return "worker shutting down"


#: Why a task was cancelled (TaskContext.cancel_reason is its text).
CancelCause = Union[Stopped, TimedOut, ShuttingDown]


def _seconds(s: float) -> str:
    if s >= 1:
        return ("%.3f" % s).rstrip("0").rstrip(".") + "s"
    return "%dms" % round(s * 1000)


_LEVELS = {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING, "ERROR": logging.ERROR}


def _quote(v: object) -> str:
    s = v if isinstance(v, str) else str(v)
    if s == "" or any(c in s for c in ' "=') or any(not c.isprintable() for c in s):
        return json.dumps(s, ensure_ascii=False)
    return s


class TaskLogger:
    """Writes lines to the task's instance log, shown live in the console.

    ``info("synced %d orders", n, shop="a")`` ships ``synced 3 orders
    shop=a`` at INFO; ``debug``, ``warning`` (``warn``), ``error`` and
    ``exception`` (ERROR, with the traceback) likewise. Every line is also
    passed to the worker's own logger, which prints it if its level lets it
    through.
    """

    _w: Worker
    _inst: int
    _task: int

    def __init__(self, worker: Worker, instance_id: int, task_id: int) -> None:
        self._w = worker
        self._inst = instance_id
        self._task = task_id

    def log(self, level: str, msg: object, *args: object, **attrs: object) -> None:
        """Logs at level "DEBUG", "INFO", "WARN" or "ERROR"."""
        level = "WARN" if level == "WARNING" else level
        if level not in _LEVELS:
            level = "INFO"
        text = str(msg) % args if args else str(msg)
        if attrs:
            text += "".join(" %s=%s" % (k, _quote(v)) for k, v in attrs.items())
        self._w._task_line(self._inst, self._task, level, text)

    def debug(self, msg: object, *args: object, **attrs: object) -> None:
        self.log("DEBUG", msg, *args, **attrs)

    def info(self, msg: object, *args: object, **attrs: object) -> None:
        self.log("INFO", msg, *args, **attrs)

    def warning(self, msg: object, *args: object, **attrs: object) -> None:
        self.log("WARN", msg, *args, **attrs)

    warn = warning

    def error(self, msg: object, *args: object, **attrs: object) -> None:
        self.log("ERROR", msg, *args, **attrs)

    def exception(self, msg: object, *args: object, **attrs: object) -> None:
        """ERROR, followed by the traceback of the exception being handled."""
        import traceback

        self.log("ERROR", str(msg) % args if args else msg, **attrs)
        self.log("ERROR", traceback.format_exc().rstrip())


class TaskContext:
    """A task as its processor sees it.

    Attributes: ``worker_id``, ``instance_id``, ``job_id``, ``task_id``,
    ``task_name`` (``ROOT``, or the name given to map), ``kind`` (ROOT, PRE,
    BROADCAST, POST, MAP, REDUCE), ``attempt``, ``execution_mode``,
    ``processor_type``, ``processor`` (the job's processor field),
    ``job_params``, ``instance_params`` (the run's parameters), ``params``
    (the run's parameters if given, else the job's), ``payload`` (a MAP
    subtask's payload, JSON text), ``results`` (POST and REDUCE: the other
    tasks' TaskResults, a Results: iterate it; see there), ``deadline`` (an aware datetime or None),
    ``start_at`` (when the server asked the task to start, protocol feature
    start.at: the processor is called then, not before; None: at once),
    ``workflow_run_id`` and ``workflow_node`` (0 and "" outside workflows),
    ``upstream`` (node → result), ``work_dir``, ``log`` (a TaskLogger) and
    ``traceparent``: the W3C trace context of a traced run (docs/tracing.md)
    for what the processor calls, "" when not traced. With the
    ``opentelemetry-api`` package installed (and an SDK configured by the
    program), the processor runs in a span of its own under the server's,
    current while it runs, and ``traceparent`` is that span's.

    A processor should return soon after ``cancelled`` becomes true: the
    server stopped the task, its deadline passed, or the worker is shutting
    down (``cancel_reason`` says which). ``wait_cancelled(seconds)`` sleeps
    until then.
    """

    worker_id: str
    task_id: int
    instance_id: int
    job_id: int
    attempt: int
    #: ROOT, PRE, BROADCAST, POST, MAP or REDUCE
    kind: str
    task_name: str
    execution_mode: str
    processor_type: str
    processor: str
    job_params: str
    instance_params: str
    payload: str
    results: Results
    deadline: datetime.datetime | None
    start_at: datetime.datetime | None
    workflow_run_id: int
    workflow_node: str
    traceparent: str
    upstream: dict[str, str]
    work_dir: str
    log: TaskLogger
    _w: Worker
    _task: WireTask
    _results_error: ResultsError | None
    _context: JSONObject
    _additions: JSONObject
    _lock: threading.Lock
    _cancelled: threading.Event
    _cause: CancelCause | None
    _on_cancel: list[Callable[[], object]]
    _map_count: int

    def __init__(self, worker: Worker, task: WireTask) -> None:
        t = task
        self._w = worker
        self._task = t
        self.worker_id = worker.worker_id
        self.task_id = t.get("taskId") or 0
        self.instance_id = t.get("instanceId") or 0
        self.job_id = t.get("jobId") or 0
        self.attempt = t.get("attempt") or 0
        self.kind = t.get("kind") or ""
        self.task_name = t.get("name") or ""
        self.execution_mode = t.get("executionMode") or ""
        self.processor_type = t.get("processorType") or ""
        self.processor = t.get("processor") or ""
        self.job_params = t.get("jobParams") or ""
        self.instance_params = t.get("params") or ""
        self.payload = t.get("payload") or ""
        self.results = Results(self, t.get("results"), t.get("resultsPaged") is True, t.get("resultCount"))
        self._results_error = None  # the first ResultsError raised to the processor
        self.deadline = protocol.parse_time(t["deadline"]) if t.get("deadline") else None
        # Rounded up to the microsecond: the task must not start before it.
        self.start_at = protocol.parse_time(t["startAt"], round_up=True) if t.get("startAt") else None
        self.workflow_run_id = t.get("workflowRunId") or 0
        self.workflow_node = t.get("workflowNode") or ""
        # The server's span for this task; the processor's own replaces it
        # when OpenTelemetry is there (worker._traced).
        tp = t.get("traceparent") or ""
        self.traceparent = tp if protocol.valid_traceparent(tp) else ""
        self.upstream = dict(t.get("upstream") or {})
        self.work_dir = worker.work_dir
        self.log = TaskLogger(worker, self.instance_id, self.task_id)
        self._context = t.get("workflowContext") or {}
        self._additions = {}
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._cause = None
        self._on_cancel = []
        self._map_count = 0

    @property
    def params(self) -> str:
        """The run's parameters if given, else the job's."""
        return self.instance_params.strip() or self.job_params.strip()

    @property
    def is_root(self) -> bool:
        return self.kind == protocol.KIND_ROOT

    @property
    def logger(self) -> TaskLogger:
        """The same as log."""
        return self.log

    def payload_json(self) -> Any:
        """The payload decoded from JSON (the value given to map)."""
        return json.loads(self.payload)

    # Cancellation.

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def cancel_reason(self) -> str | None:
        """Why the task was cancelled ("stopped: …", "timed out after …",
        "worker shutting down"), or None."""
        return None if self._cause is None else str(self._cause)

    def wait_cancelled(self, timeout: float | None = None) -> bool:
        """Waits up to timeout seconds (None: for ever) for the task to be
        cancelled; returns whether it was."""
        return self._cancelled.wait(timeout)

    def _cancel(self, cause: CancelCause) -> None:
        with self._lock:
            if self._cancelled.is_set():
                return
            self._cause = cause
            self._cancelled.set()
            callbacks = list(self._on_cancel)
        for cb in callbacks:
            cb()

    def _when_cancelled(self, cb: Callable[[], object]) -> None:
        with self._lock:
            if not self._cancelled.is_set():
                self._on_cancel.append(cb)
                return
        cb()

    # Workflows.

    @property
    def workflow_context(self) -> JSONObject:
        """The workflow run's context (a copy) with this task's additions;
        empty outside workflows."""
        with self._lock:
            ctx = copy.deepcopy(self._context)
            ctx.update(copy.deepcopy(self._additions))
        return ctx

    def set_workflow_value(self, key: str, value: object) -> None:
        """Adds key → value (JSON-encodable) to the workflow context; the
        additions go with the task's final report."""
        with self._lock:
            self._additions[key] = value

    def _workflow_additions(self) -> tuple[JSONObject | None, int]:
        """The additions and their encoded size; raises ValueError when
        they cannot be sent (the task then fails: losing them silently
        would break the workflow downstream)."""
        with self._lock:
            if not self._additions:
                return None, 0
            additions = dict(self._additions)
        try:
            size = protocol.encoded_len(additions)
        except (TypeError, ValueError) as e:
            raise ValueError("workflow context values cannot be encoded as JSON: %s" % e)
        limit = protocol.MAX_FRAME_BYTES // 4
        if size > limit:
            raise ValueError("workflow context additions take %d bytes; at most %d" % (size, limit))
        return additions, size

    # Map.

    def map(self, subtasks: Iterable[object], name: str) -> None:
        """Emits subtasks of a MAP or MAP_REDUCE instance from a ROOT or MAP
        task: each element, encoded as JSON, becomes the payload of a MAP
        task called name, which the server stores and dispatches to any
        worker. Returns once the server has stored them all; raises
        MapError if it refused, stored none of this worker's subtasks for
        the worker's map_timeout (while it stores some, however slowly, map
        waits on), or the task was cancelled meanwhile. Large calls go in
        several messages; on error, the subtasks before the failing message
        may be stored already (the error says which)."""
        if self.execution_mode not in ("MAP", "MAP_REDUCE"):
            raise MapError("map: only MAP and MAP_REDUCE jobs can emit subtasks; task %d belongs to a %s job"
                           % (self.task_id, self.execution_mode or "unknown"))
        if self.kind not in (protocol.KIND_ROOT, protocol.KIND_MAP):
            raise MapError("map: a %s task cannot emit subtasks; only ROOT and MAP tasks can" % self.kind)
        if not isinstance(name, str) or not 1 <= len(name.encode("utf-8")) <= 255:
            raise MapError("map: the subtask name must be 1 to 255 bytes")
        subtasks = list(subtasks)
        if not subtasks:
            return
        limit = protocol.MAX_PAYLOAD_BYTES
        chunks: list[MapChunk] = []
        cur: MapChunk | None = None
        for i, s in enumerate(subtasks):
            try:
                p = protocol.dumps(s)
            except (TypeError, ValueError) as e:
                raise MapError("map: subtask %d cannot be encoded as JSON: %s" % (i, e))
            if len(p.encode("utf-8")) > limit:
                raise MapError("map: subtask %d is %d bytes encoded; a subtask's payload is at most %d"
                               % (i, len(p.encode("utf-8")), limit))
            size = protocol.encoded_len(p) + 1
            if cur is None or len(cur.body["payloads"]) == protocol.MAX_BATCH or cur.size + size > self._w._outbox.BATCH_BYTES:
                cur = MapChunk(self.instance_id, self.task_id, name, self._next_map_key(), i)
                chunks.append(cur)
            cur.body["payloads"].append(p)
            cur.size += size
        self._map_wait(chunks, self._w.map_timeout)

    # Results.

    def _results_page(self, after: int, limit: int) -> tuple[list[WireResult], bool]:
        """Reads one page of the task's results from the server: those after
        task id after, at most limit; returns (results as dicts, more).
        Raises ResultsError, remembered so that the task fails even if the
        processor catches it."""
        try:
            return self._read_page(after, limit)
        except ResultsError as e:
            with self._lock:
                if self._results_error is None:
                    self._results_error = e
            raise

    def _read_page(self, after: int, limit: int) -> tuple[list[WireResult], bool]:
        outbox = self._w._outbox
        timeout = self._w.map_timeout
        where = "reading the results of task %d after task %d" % (self.task_id, after)
        page = PageRequest(self.instance_id, self.task_id, after, limit)
        try:
            outbox.add_page(page)
        except OutboxClosed as e:
            raise ResultsError("%s: %s" % (where, e))
        deadline = time.monotonic() + timeout
        while not page.wait(0.05):
            if self.cancelled:
                outbox.abandon_page(page)
                raise ResultsError("%s: %s" % (where, self.cancel_reason))
            if time.monotonic() >= deadline:
                outbox.abandon_page(page)
                raise ResultsError("%s: the server did not answer within %s (connected: %s)"
                                   % (where, _seconds(timeout), self._w.connected))
        if page.error is not None:
            raise ResultsError("%s: %s" % (where, page.error))
        return page.results, page.more

    def _next_map_key(self) -> str:
        """Keys the task's n-th map message "t<task id>/<n>": a task run again
        after its worker died maps the same subtasks under the same keys, and
        the server stores them once."""
        self._map_count += 1
        return "t%d/%d" % (self.task_id, self._map_count)

    def _map_wait(self, chunks: list[MapChunk], timeout: float) -> None:
        """Queues the chunks and waits for each one's verdict; see map."""
        outbox = self._w._outbox
        try:
            outbox.add_maps(chunks)
        except OutboxClosed as e:
            raise MapError("map: %s" % e)
        # The deadline is for the server storing none of this worker's
        # chunks: while it stores some, however slowly, the call waits on
        # (back-pressure, not failure).
        deadline = time.monotonic() + timeout
        progress = outbox.maps_stored

        def stored(i: int, sure: bool) -> str:

            if i == 0:
                return "none was stored" if sure else "they may or may not be stored"
            done = "subtasks 0..%d were stored" % (chunks[i].first - 1)
            return done if sure else done + ", later ones may or may not be"

        for i, c in enumerate(chunks):
            while not c.wait(0.05):
                if self.cancelled:
                    outbox.abandon(chunks[i:])
                    raise MapError("map: %s (%s)" % (self.cancel_reason, stored(i, False)))
                if outbox.maps_stored != progress:
                    progress = outbox.maps_stored
                    deadline = time.monotonic() + timeout
                if time.monotonic() >= deadline:
                    outbox.abandon(chunks[i:])
                    raise MapError("map: the server did not confirm storing the subtasks within %s (connected: %s; %s)"
                                   % (_seconds(timeout), self._w.connected, stored(i, False)))
            if c.error is not None:
                outbox.abandon(chunks[i + 1:])
                raise MapError("map: %s (%s)" % (c.error, stored(i, True)))


# What Worker.register takes. Aliases, evaluated at import: typing's
# Callable and Optional, which Python 3.9 has (not `str | None`).

#: ``fn(ctx)``: runs a ROOT, BROADCAST or MAP task (a STANDALONE job's run
#: is a ROOT task) and returns its result; None is "". Raising fails the
#: task with the exception's text.
Processor = Callable[[TaskContext], Optional[str]]

#: ``pre(ctx)``: a BROADCAST job's once-before step; what it returns is
#: not used. Raising fails the instance.
PreProcessor = Callable[[TaskContext], object]

#: ``post(ctx, results)`` of a BROADCAST job, ``reduce(ctx, results)`` of a
#: MAP_REDUCE job: the other tasks' results in, the instance's result out.
ResultsProcessor = Callable[[TaskContext, Results], Optional[str]]
