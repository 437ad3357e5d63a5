"""What the worker owes the server, kept until the server acknowledges it.

Task reports, log lines, map requests and requests for pages of results
(docs/protocol.md §11.1) are queued here the moment they
are produced. The session's writer takes them in batches (take), the
reader hands back the acks (ack), and when a connection ends everything
sent but unacknowledged goes back to the front of its queue (requeue), to
be sent again first on the next connection (docs/protocol.md §6.5).

The ordering rules live here too: a task's final report is held back until
every log line logged before it has been acknowledged (rule 3), and tasks
whose final report is unacknowledged are still listed as running (rule 4,
see unacked_finals).

Bounds: at most ``window`` messages in flight per connection; queued log
lines are bounded (the oldest are dropped and counted per instance, the
counts ride on the next logs message); queued reports are bounded, but a
report is never dropped: a task finishing into a full queue waits.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Callable, Iterable


from . import protocol
from .protocol import JSONObject, WireLogLine, WireReport, WireResult


class OutboxClosed(Exception):
    """The worker has stopped."""


class MapChunk:
    """One map message: part of a TaskContext.map call, which waits on it."""

    body: JSONObject
    first: int
    size: int
    abandoned: bool
    _done: threading.Event
    error: BaseException | None

    def __init__(self, instance_id: int, parent_task_id: int, name: str, key: str, first: int) -> None:
        self.body = {"instanceId": instance_id, "parentTaskId": parent_task_id, "name": name, "payloads": [], "key": key}
        self.first = first  # index of its first payload in the map call, for errors
        self.size = 200 + protocol.encoded_len(name)
        self.abandoned = False  # the caller stopped waiting: do not (re-)send
        self._done = threading.Event()
        self.error = None

    def settle(self, error: BaseException | None) -> None:
        """Gives the caller the outcome; only the first one counts."""
        if not self._done.is_set():
            self.error = error
            self._done.set()

    def wait(self, timeout: float | None) -> bool:
        """True once settled (see error), False on timeout."""
        return self._done.wait(timeout)


class PageRequest:
    """One results message: a request for a page of a POST or REDUCE task's
    results, which the task waits on. Reading is idempotent, so a request
    in flight when a connection ends is sent again on the next."""

    body: JSONObject
    abandoned: bool
    _done: threading.Event
    error: BaseException | None
    results: list[WireResult]
    more: bool

    def __init__(self, instance_id: int, task_id: int, after: int, limit: int) -> None:
        self.body = {"instanceId": instance_id, "taskId": task_id, "after": after, "limit": limit}
        self.abandoned = False  # the caller stopped waiting: do not (re-)send
        self._done = threading.Event()
        self.error = None
        self.results = []
        self.more = False

    def settle(self, error: BaseException | None, results: list[WireResult] | None = None, more: object = False) -> None:
        """Gives the caller the page (or why there is none); only the first
        outcome counts."""
        if not self._done.is_set():
            self.error, self.results, self.more = error, results or [], bool(more)
            self._done.set()

    def wait(self, timeout: float | None) -> bool:
        """True once settled (see error, results, more), False on timeout."""
        return self._done.wait(timeout)


class _Report:
    __slots__ = ("body", "size", "log_mark")

    body: WireReport
    size: int
    log_mark: int  # a final report: the seq of the last line logged before it

    def __init__(self, body: WireReport, size: int, log_mark: int) -> None:
        self.body, self.size, self.log_mark = body, size, log_mark


class Message:
    """One report, logs, map or results frame in flight."""

    id: int
    type: str
    lines: list[WireLogLine]
    dropped: dict[int, int]  # instance id → log lines dropped
    reports: list[_Report]
    chunk: MapChunk | None
    page: PageRequest | None

    def __init__(self, type: str) -> None:
        self.id = 0
        self.type = type
        self.lines = []
        self.dropped = {}
        self.reports = []
        self.chunk = None
        self.page = None

    def body(self) -> JSONObject:
        if self.type == protocol.LOGS:
            b: JSONObject = {"lines": self.lines}
            if self.dropped:
                b["dropped"] = {str(k): v for k, v in self.dropped.items()}
            return b
        if self.type == protocol.REPORT:
            return {"items": [r.body for r in self.reports]}
        if self.type == protocol.RESULTS:
            assert self.page is not None  # a results message has its page
            return self.page.body
        assert self.chunk is not None  # and a map message its chunk
        return self.chunk.body


class Outbox:
    #: Half a frame, leaving room for the envelope around the items.
    BATCH_BYTES: int = protocol.MAX_FRAME_BYTES // 2
    #: How long logs and reports wait after the server refused them.
    RETRY_PAUSE: float = 1.0

    _log: logging.Logger
    _max_logs: int
    _max_reports: int
    _window: int
    _urgent: int
    _lock: threading.Lock
    _room: threading.Condition
    wake: threading.Event
    _seq: int
    _logs: collections.deque[tuple[WireLogLine, int]]  # a line and its encoded size
    _dropped: dict[int, int]  # instance id → lines dropped, not yet sent
    _reports: collections.deque[_Report]
    _maps: collections.deque[MapChunk]
    _pages: collections.deque[PageRequest]
    _inflight: dict[int, Message]  # by message id
    _finals: dict[int, int]  # task id → its final reports not yet acknowledged
    maps_stored: int
    _closed: bool
    _hold_until: float

    def __init__(self, log: logging.Logger, max_logs: int = 20000, max_reports: int = 10000, window: int = 8,
                 urgent: int = 200) -> None:
        self._log = log
        self._max_logs = max(max_logs, 1)
        self._max_reports = max(max_reports, 1)
        self._window = window
        self._urgent = urgent
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        #: Set when the writer should send now rather than at its next tick.
        self.wake = threading.Event()
        self._seq = 0
        self._logs = collections.deque()
        self._dropped = {}
        self._reports = collections.deque()
        self._maps = collections.deque()
        self._pages = collections.deque()
        self._inflight = {}
        self._finals = {}
        # How many map chunks the server has stored: a Map call waiting
        # behind other tasks' chunks sees the server is storing this
        # worker's subtasks, only slower than they come, and keeps waiting.
        self.maps_stored = 0
        self._closed = False
        self._hold_until = 0.0

    def poke(self) -> None:
        self.wake.set()

    def _urgent_locked(self) -> bool:
        return bool(self._maps) or bool(self._pages) or len(self._logs) >= self._urgent or len(self._reports) >= self._urgent

    def add_log(self, line: WireLogLine) -> None:
        """Queues a log line (a dict without seq), numbering it. When the
        queue is full the oldest line is dropped and counted."""
        with self._lock:
            if self._closed:
                return
            self._seq += 1
            line["seq"] = self._seq
            while len(self._logs) >= self._max_logs:
                self._drop_oldest_locked()
            self._logs.append((line, protocol.encoded_len(line) + 1))
            urgent = self._urgent_locked()
        if urgent:
            self.poke()

    def _drop_oldest_locked(self) -> None:
        line, _ = self._logs.popleft()
        self._dropped[line["instanceId"]] = self._dropped.get(line["instanceId"], 0) + 1

    def add_report(self, body: WireReport) -> None:
        """Queues a task report, waiting for room if the queue is full.
        Raises OutboxClosed once the worker has stopped."""
        final = body["status"] != protocol.RUNNING
        item = _Report(body, protocol.encoded_len(body) + 1, 0)
        with self._lock:
            if final:
                item.log_mark = self._seq
            while not self._closed and len(self._reports) >= self._max_reports:
                self._room.wait()
            if self._closed:
                raise OutboxClosed("the worker has stopped")
            self._reports.append(item)
            if final:
                self._finals[body["taskId"]] = self._finals.get(body["taskId"], 0) + 1
            urgent = self._urgent_locked()
        if urgent:
            self.poke()

    def add_maps(self, chunks: Iterable[MapChunk]) -> None:
        """Queues the chunks of a map call; the writer is woken at once."""
        with self._lock:
            if self._closed:
                raise OutboxClosed("the worker has stopped")
            self._maps.extend(chunks)
        self.poke()

    def abandon(self, chunks: Iterable[MapChunk]) -> None:
        """Chunks whose caller stopped waiting are never sent (again)."""
        with self._lock:
            for c in chunks:
                c.abandoned = True
            self._maps = collections.deque(c for c in self._maps if not c.abandoned)

    def add_page(self, page: PageRequest) -> None:
        """Queues a request for a page of results; the writer is woken at
        once (a task is waiting)."""
        with self._lock:
            if self._closed:
                raise OutboxClosed("the worker has stopped")
            self._pages.append(page)
        self.poke()

    def abandon_page(self, page: PageRequest) -> None:
        """A request whose caller stopped waiting is never sent (again)."""
        with self._lock:
            page.abandoned = True
            self._pages = collections.deque(p for p in self._pages if not p.abandoned)

    def unacked_finals(self) -> set[int]:
        """The tasks whose final report the server has not acknowledged."""
        with self._lock:
            return set(self._finals)

    def pending(self) -> bool:
        """Whether anything owed to the server is queued or unacknowledged
        (a request for results is not: only its task, cancelled by then,
        waits for it)."""
        with self._lock:
            inflight = any(m.type != protocol.RESULTS for m in self._inflight.values())
            return bool(self._logs or self._reports or self._maps or inflight or self._dropped)

    def take(self, next_id: Callable[[], int]) -> list[Message]:
        """Fills the in-flight window with messages — maps and requests for
        results first (a task waits for them), then logs, then reports — each under an id from
        next_id(). The caller sends them."""
        msgs = []
        with self._lock:
            took_reports = False
            while len(self._inflight) < self._window:
                m = self._next_locked()
                if m is None:
                    break
                took_reports = took_reports or m.type == protocol.REPORT
                m.id = next_id()
                self._inflight[m.id] = m
                msgs.append(m)
            if took_reports:
                self._room.notify_all()
        return msgs

    def _next_locked(self) -> Message | None:
        while self._maps:
            c = self._maps.popleft()
            if not c.abandoned:
                m = Message(protocol.MAP)
                m.chunk = c
                return m
        while self._pages:
            p = self._pages.popleft()
            if not p.abandoned:
                m = Message(protocol.RESULTS)
                m.page = p
                return m
        if time.monotonic() < self._hold_until:
            return None
        if self._logs or self._dropped:
            m = Message(protocol.LOGS)
            size = 0
            while self._logs and len(m.lines) < protocol.MAX_BATCH:
                line, n = self._logs[0]
                if m.lines and size + n > self.BATCH_BYTES:
                    break
                size += n
                m.lines.append(line)
                self._logs.popleft()
            if self._dropped:
                m.dropped, self._dropped = self._dropped, {}
            return m
        if self._reports:
            m = Message(protocol.REPORT)
            size = 0
            unacked = self._first_unacked_log_locked()
            while self._reports and len(m.reports) < protocol.MAX_BATCH:
                r = self._reports[0]
                if r.log_mark and unacked and r.log_mark >= unacked:
                    break  # its lines are not all stored yet
                if m.reports and size + r.size > self.BATCH_BYTES:
                    break
                size += r.size
                m.reports.append(self._reports.popleft())
            if m.reports:
                return m
        return None

    def _first_unacked_log_locked(self) -> int:
        first = self._logs[0][0]["seq"] if self._logs else 0
        for m in self._inflight.values():
            if m.type == protocol.LOGS and m.lines and (first == 0 or m.lines[0]["seq"] < first):
                first = m.lines[0]["seq"]
        return first

    def _settle_finals_locked(self, m: Message) -> None:
        for r in m.reports:
            if r.body["status"] == protocol.RUNNING:
                continue
            tid = r.body["taskId"]
            self._finals[tid] -= 1
            if self._finals[tid] <= 0:
                del self._finals[tid]

    def ack(self, id: int, ack: JSONObject) -> None:
        """Settles the message the server answered (ack is the ack body).

        A refused map or results request is final: its caller gets the
        server's reason. A
        refused report or logs message is kept and sent again after a pause
        (docs/protocol.md §6.3: the server refuses them only for reasons
        that pass, and de-duplicates what it gets twice)."""
        with self._lock:
            m = self._inflight.pop(id, None)
            if m is None:
                return  # an ack for something else, or a duplicate
            ok = ack.get("ok") is True
            if ok or m.type in (protocol.MAP, protocol.RESULTS):
                self._settle_finals_locked(m)
            else:
                self._requeue_locked([m])
                self._hold_until = time.monotonic() + self.RETRY_PAUSE
            urgent = self._urgent_locked() or (m.type == protocol.LOGS and bool(self._reports))
        if urgent:
            self.poke()
        if m.page is not None:
            if ok:
                m.page.settle(None, ack.get("results") or [], ack.get("more") is True)
            else:
                m.page.settle(ResultsRefused("the server refused to read results: %s"
                                             % (ack.get("error") or "no reason given")))
            return
        if ok:
            if m.chunk is not None:
                with self._lock:
                    self.maps_stored += 1
                m.chunk.settle(None)
            return
        reason = ack.get("error") or "no reason given"
        if m.chunk is not None:  # a map message
            c = m.chunk
            c.settle(MapRefused("the server refused subtasks %d..%d: %s" % (
                c.first, c.first + len(c.body["payloads"]) - 1, reason)))
        else:
            self._log.warning("the server refused %d %s; sending them again in %gs: %s",
                              len(m.lines) or len(m.reports), "log lines" if m.lines else "task reports",
                              self.RETRY_PAUSE, reason)

    def discard(self, id: int, err: Exception) -> None:
        """Forgets a message that cannot be encoded (it can never be sent);
        a map caller is told why."""
        with self._lock:
            m = self._inflight.pop(id, None)
            if m is None:
                return
            self._settle_finals_locked(m)
        self._log.error("dropping a %s message that cannot be sent: %s", m.type, err)
        if m.chunk is not None:
            m.chunk.settle(err)
        if m.page is not None:
            m.page.settle(err)

    def _requeue_locked(self, msgs: list[Message]) -> None:
        lines: list[tuple[WireLogLine, int]] = []
        reports: list[_Report] = []
        chunks: list[MapChunk] = []
        pages: list[PageRequest] = []
        for m in msgs:
            if m.page is not None and not m.page.abandoned:
                pages.append(m.page)
            lines.extend((l, protocol.encoded_len(l) + 1) for l in m.lines)
            reports.extend(m.reports)
            if m.chunk is not None and not m.chunk.abandoned:
                chunks.append(m.chunk)
            for inst, n in m.dropped.items():
                self._dropped[inst] = self._dropped.get(inst, 0) + n
        self._logs.extendleft(reversed(lines))
        self._reports.extendleft(reversed(reports))
        self._maps.extendleft(reversed(chunks))
        self._pages.extendleft(reversed(pages))
        while len(self._logs) > self._max_logs:
            self._drop_oldest_locked()

    def requeue(self) -> None:
        """After a connection ended: everything unacknowledged goes back to
        the front of its queue, oldest first."""
        with self._lock:
            msgs = [self._inflight[i] for i in sorted(self._inflight)]
            self._inflight.clear()
            self._requeue_locked(msgs)

    def close(self) -> None:

        """Stops the outbox: queued map calls and requests for results
        fail, and tasks waiting for
        room in the report queue are released."""
        with self._lock:
            self._closed = True
            while self._maps:
                self._maps.popleft().settle(OutboxClosed("the worker has stopped"))
            while self._pages:
                self._pages.popleft().settle(OutboxClosed("the worker has stopped"))
            self._room.notify_all()


class MapRefused(Exception):
    """The server refused a map message."""


class ResultsRefused(Exception):
    """The server refused to read a page of results (the task is not a
    POST or REDUCE task running on this worker any more)."""
