"""The jobwheel worker wire protocol, version 1: names, limits, frames.

docs/protocol.md in the jobwheel repository is the specification; Go's
worker/protocol/protocol.go the reference. Every message is one JSON text
frame ``{"id", "re", "type", "body"}``.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any, Dict, Mapping, TypedDict

VERSION = "1"

#: A frame in either direction, in bytes.
MAX_FRAME_BYTES = 4 << 20
MAX_PAYLOAD_BYTES = 64 << 10  # one map subtask's payload
#: A dispatch rejection's code when the worker had no free slot.
REJECT_FULL = "FULL"
#: A task's result; longer results are cut.
MAX_RESULT_BYTES = 64 << 10
#: One log line's text; longer lines are cut.
MAX_LOG_LINE_BYTES = 16 << 10
#: Items of one report, lines of one logs message, payloads of one map.
MAX_BATCH = 1000
#: Heartbeat intervals of silence after which a worker is lost.
LOST_AFTER_BEATS = 3

DISCOVER_PATH = "/worker/discover"
CONNECT_PATH = "/worker/connect"

HELLO = "hello"
WELCOME = "welcome"
ERROR = "error"
HEARTBEAT = "heartbeat"
DISPATCH = "dispatch"
STOP = "stop"
REPORT = "report"
LOGS = "logs"
MAP = "map"
REDIRECT = "redirect"
RESULTS = "results"
ACK = "ack"

TYPES = frozenset((HELLO, WELCOME, ERROR, HEARTBEAT, DISPATCH, STOP, REPORT, LOGS, MAP, REDIRECT, RESULTS, ACK))

#: The optional protocol parts this SDK names in hello.features (§15).
#: results.paged: a POST or REDUCE task dispatched with resultsPaged reads
#: its results in pages (a results frame, §11.1) instead of getting them
#: all inside the dispatch.
FEATURE_RESULTS_PAGED = "results.paged"
#: start.at: a task may come with startAt, ahead of its time: the worker
#: accepts it and holds it (listed as running, nothing reported) until
#: then; a stop with unstarted takes back only tasks still held (§8.6).
FEATURE_START_AT = "start.at"
FEATURES = (FEATURE_RESULTS_PAGED, FEATURE_START_AT)

CODE_AUTH = "AUTH"
CODE_NOT_OWNER = "NOT_OWNER"
CODE_BAD_FRAME = "BAD_FRAME"
CODE_PROTOCOL = "PROTOCOL"
CODE_INTERNAL = "INTERNAL"
CODE_REFUSED = "REFUSED"

KIND_ROOT = "ROOT"
KIND_PRE = "PRE"
KIND_BROADCAST = "BROADCAST"
KIND_POST = "POST"
KIND_MAP = "MAP"
KIND_REDUCE = "REDUCE"
KINDS = frozenset((KIND_ROOT, KIND_PRE, KIND_BROADCAST, KIND_POST, KIND_MAP, KIND_REDUCE))

RUNNING = "RUNNING"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"
STOPPED = "STOPPED"
REASON_TIMEOUT = "TIMEOUT"
#: A FAILED task the worker gives back unstarted or unfinished: the server
#: runs it again elsewhere without counting a retry.
REASON_HANDED_BACK = "HANDED_BACK"


# The wire's objects as the worker builds or reads them. Frames are checked
# by decode (their shape) before these are trusted; the keys are camelCase,
# as on the wire.

#: A JSON object: a frame's body.
JSONObject = Dict[str, Any]


class WireResult(TypedDict, total=False):
    """A finished task's outcome in a dispatch or an ack (§8.1, §11.1)."""

    taskId: int
    name: str
    success: bool
    result: str


class WireTask(TypedDict, total=False):
    """One task of a dispatch (§8.1); a field the server left out is absent."""

    taskId: int
    instanceId: int
    jobId: int
    attempt: int
    kind: str
    name: str
    executionMode: str
    processorType: str
    processor: str
    jobParams: str
    params: str
    payload: str
    results: list[WireResult]
    resultsPaged: bool
    resultCount: int
    deadline: str
    startAt: str
    workflowRunId: int
    workflowNode: str
    workflowContext: JSONObject
    upstream: dict[str, str]
    traceparent: str


class _WireReportBase(TypedDict):
    taskId: int
    instanceId: int
    status: str
    at: str


class WireReport(_WireReportBase, total=False):
    """One item of a report frame (§9): a task's status."""

    result: str
    reason: str
    workflowContext: JSONObject


class _WireLogLineBase(TypedDict):
    instanceId: int
    taskId: int
    time: str
    level: str
    text: str


class WireLogLine(_WireLogLineBase, total=False):
    """One line of a logs frame (§10); the outbox numbers it (seq)."""

    seq: int


class BadFrame(ValueError):
    """A frame that cannot be used: answered with error BAD_FRAME."""


class FrameTooLarge(ValueError):
    """A frame over MAX_FRAME_BYTES: it must not be sent."""


class Frame:
    """A decoded frame."""

    __slots__ = ("id", "re", "type", "body")

    id: int
    re: int
    type: str
    body: JSONObject

    def __init__(self, id: int, re: int, type: str, body: JSONObject) -> None:
        self.id, self.re, self.type, self.body = id, re, type, body

    def __repr__(self) -> str:
        return "Frame(id=%r, re=%r, type=%r, body=%r)" % (self.id, self.re, self.type, self.body)


def dumps(value: object) -> str:
    """Compact JSON, UTF-8 left as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def encoded_len(value: object) -> int:
    """The length in bytes of value encoded by dumps."""
    return len(dumps(value).encode("utf-8"))


def encode(type: str, body: object, id: int = 0, re: int = 0) -> str:
    """Encodes a frame; raises FrameTooLarge over MAX_FRAME_BYTES."""
    frame: dict[str, object] = {"type": type, "body": body}
    if id:
        frame["id"] = id
    if re:
        frame["re"] = re
    text = dumps(frame)
    n = len(text.encode("utf-8"))
    if n > MAX_FRAME_BYTES:
        raise FrameTooLarge("%s frame of %d bytes is over the %d-byte limit" % (type, n, MAX_FRAME_BYTES))
    return text


def _int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check(cond: object, what: str) -> None:
    if not cond:
        raise BadFrame(what)


def _ints(body: Mapping[str, Any], *names: str) -> None:
    for n in names:
        _check(body.get(n) is None or _int(body[n]), "%s must be an integer" % n)


def _strs(body: Mapping[str, Any], *names: str) -> None:
    for n in names:
        _check(body.get(n) is None or isinstance(body[n], str), "%s must be a string" % n)


def _id_list(body: Mapping[str, Any], name: str) -> None:
    v = body.get(name)
    _check(v is None or isinstance(v, list) and all(_int(x) for x in v), "%s must be a list of integers" % name)


_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$")


def valid_traceparent(s: str | None) -> bool:
    """Whether s is a W3C traceparent to start the processor's span under
    (docs/protocol.md §8.5): version 00's four fields exactly, or a later
    version's (not ff) followed by nothing or "-…"; neither id all zeros."""
    m = _TRACEPARENT.match(s or "")
    if not m:
        return False
    version, trace_id, parent_id, rest = m.groups()
    if version == "ff" or (version == "00" and rest is not None):
        return False
    return trace_id.strip("0") != "" and parent_id.strip("0") != ""


# The checks take JSON as json.loads made it (Any): checking it is their job.

def _validate_task(t: Any) -> None:
    _check(isinstance(t, dict), "a task must be an object")
    _ints(t, "taskId", "instanceId", "jobId", "attempt", "workflowRunId", "resultCount")
    _check(t.get("resultsPaged") is None or isinstance(t["resultsPaged"], bool), "resultsPaged must be a boolean")
    _strs(t, "kind", "name", "executionMode", "processorType", "processor", "jobParams", "params", "payload",
          "deadline", "startAt", "workflowNode", "traceparent")
    for field in ("deadline", "startAt"):
        if t.get(field):
            try:
                parse_time(t[field], round_up=field == "startAt")
            except ValueError as e:
                raise BadFrame("task %s: %s: %s" % (t.get("taskId"), field, e))
    _check(t.get("workflowContext") is None or isinstance(t["workflowContext"], dict), "workflowContext must be an object")
    up = t.get("upstream")
    _check(up is None or isinstance(up, dict) and all(isinstance(v, str) for v in up.values()),
           "upstream must be an object of strings")
    _validate_results(t.get("results"))


def _validate_results(results: Any) -> None:

    _check(results is None or isinstance(results, list) and all(isinstance(r, dict) for r in results),
           "results must be a list of objects")
    for r in results or ():
        _ints(r, "taskId")
        _strs(r, "name", "result")
        _check(r.get("success") is None or isinstance(r["success"], bool), "results: success must be a boolean")


def _validate(type: str, body: JSONObject) -> None:
    """Checks the shape of a body the worker receives."""
    if type == WELCOME:
        _ints(body, "epoch", "heartbeatMs")
        _strs(body, "serverId")
        v = body.get("servers")
        _check(v is None or isinstance(v, list) and all(isinstance(s, str) for s in v), "servers must be a list of strings")
        changes = body.get("jobChanges")
        _check(changes is None or isinstance(changes, list), "jobChanges must be a list")
        for i, c in enumerate(changes or ()):
            _check(isinstance(c, dict), "jobChanges[%d] must be an object" % i)
            for n in ("name", "action", "error"):
                _check(c.get(n) is None or isinstance(c[n], str), "jobChanges[%d].%s must be a string" % (i, n))
            f = c.get("fields")
            _check(f is None or isinstance(f, list) and all(isinstance(s, str) for s in f),
                   "jobChanges[%d].fields must be a list of strings" % i)
    elif type == DISPATCH:
        _ints(body, "epoch")
        _strs(body, "app")
        tasks = body.get("tasks")
        _check(tasks is None or isinstance(tasks, list), "tasks must be a list")
        for t in tasks or ():
            _validate_task(t)
    elif type == STOP:
        _ints(body, "instanceId")
        _id_list(body, "taskIds")
        _strs(body, "reason")
        _check(body.get("unstarted") is None or isinstance(body["unstarted"], bool), "unstarted must be a boolean")
    elif type == ACK:
        _check(body.get("ok") is None or isinstance(body["ok"], bool), "ok must be a boolean")
        _check(body.get("more") is None or isinstance(body["more"], bool), "more must be a boolean")
        _strs(body, "error", "code")
        _validate_results(body.get("results"))
    elif type == REDIRECT:
        _strs(body, "server", "reason")
    elif type == ERROR:
        _strs(body, "code", "message")


def decode(text: str) -> Frame:
    """Decodes and checks a frame the worker received; raises BadFrame
    saying what is wrong. Unknown fields are ignored."""
    if len(text) > MAX_FRAME_BYTES:
        raise BadFrame("a frame over %d bytes" % MAX_FRAME_BYTES)
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise BadFrame("not a JSON frame: %s" % e)
    _check(isinstance(obj, dict), "not a JSON object")
    type = obj.get("type")
    _check(isinstance(type, str), "no type")
    _check(type in TYPES, "unknown type %r" % type)
    id, re_ = obj.get("id", 0) or 0, obj.get("re", 0) or 0
    _check(_int(id) and _int(re_) and id >= 0 and re_ >= 0, "id and re must be integers of at least 0")
    body = obj.get("body")
    if body is None:
        body = {}
    _check(isinstance(body, dict), "%s body is not an object" % type)
    try:
        _validate(type, body)
    except BadFrame as e:
        raise BadFrame("%s: %s" % (type, e))
    return Frame(id, re_, type, body)


_CUT = "…[cut]"


def truncate(s: str, n: int) -> str:
    """Cuts s to at most n bytes of UTF-8, on a character boundary, ending
    with "…[cut]" when it cut."""
    b = s.encode("utf-8")
    if len(b) <= n:
        return s
    mark = _CUT.encode("utf-8")
    return b[:max(n - len(mark), 0)].decode("utf-8", "ignore") + _CUT


def format_time(dt: datetime.datetime | None = None) -> str:
    """An RFC 3339 time in UTC with microseconds: now, or dt (aware)."""
    if dt is None:
        dt = datetime.datetime.now(datetime.timezone.utc)
    return dt.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$")


def parse_time(s: str, round_up: bool = False) -> datetime.datetime:

    """Parses an RFC 3339 time (any fraction, any offset) to an aware
    datetime. A fraction finer than a microsecond is cut, or with round_up
    rounded up: a time not to act before (startAt) must not move earlier."""
    m = _TIME.match(s)
    if not m:
        raise ValueError("%r is not an RFC 3339 time" % s)
    y, mo, d, h, mi, sec, frac, z, sign, oh, om = m.groups()
    micro = int((frac or "0")[:6].ljust(6, "0"))
    up = round_up and (frac or "")[6:].strip("0") != ""
    if z:
        tz = datetime.timezone.utc
    else:
        off = datetime.timedelta(hours=int(oh), minutes=int(om))
        tz = datetime.timezone(off if sign == "+" else -off)
    dt = datetime.datetime(int(y), int(mo), int(d), int(h), int(mi), int(sec), micro, tz)
    try:
        return dt + datetime.timedelta(microseconds=1) if up else dt
    except OverflowError:
        raise ValueError("%r is out of range" % s)
