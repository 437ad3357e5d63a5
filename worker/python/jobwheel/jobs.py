"""Jobs declared in code: a service names a set of jobs next to the
processors that run them, and the server makes the app's jobs match on
every connect (docs/protocol.md §5.1, "Jobs declared in code").

The fields are the Go SDK's worker.JobDeclaration (protocol.DeclaredJob),
in snake_case; on the wire they are camelCase, and a field left at its
default is left out, so the server gives it the API's default (JobInput).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any, ClassVar, NamedTuple, TypedDict

__all__ = ["Job", "JobChange", "JobsSettings", "MAX_DECLARED_JOBS", "read_jobs_file"]

#: At most this many jobs in one declaration (the hello's limit).
MAX_DECLARED_JOBS = 1000


class JobChange(NamedTuple):
    """What the server did with one declared job (Worker.job_changes): action
    CREATE, UPDATE (fields: the definition's fields it changed), UNCHANGED,
    DISABLE (a job of the set no longer declared) or REFUSED (a job of that
    name the set does not manage, left alone; error says why) — or, with
    jobs_dry_run, would do."""

    name: str
    action: str
    fields: list[str]
    error: str = ""


JOB_CREATE = "CREATE"
JOB_UPDATE = "UPDATE"
JOB_UNCHANGED = "UNCHANGED"
JOB_DISABLE = "DISABLE"
JOB_REFUSED = "REFUSED"


@dataclasses.dataclass
class Job:
    """A job declared in code, run by the GO processor ``processor`` of
    this worker (or of another worker of the same service).

    ::

        Job(name="invoices", schedule_type="CRON", schedule_expression="0 0 3 * * ?",
            time_zone="Europe/Berlin", processor="invoices", timeout_ms=600000)

    Every field but name, schedule_type and processor is optional: left at
    its default ("" or 0) it is not sent, and the server uses the API's
    default. The server checks the meaning (a schedule it cannot parse, an
    unknown mode) as the API does and refuses the whole hello with
    BAD_FRAME naming the job and the field; the worker logs that and
    retries, as with any refused connection.
    """

    name: str
    schedule_type: str
    processor: str
    schedule_expression: str = ""
    description: str = ""
    time_zone: str = ""
    execution_mode: str = ""
    params: str = ""
    max_instances: int = 0
    task_concurrency: int = 0
    timeout_ms: int = 0
    instance_retries: int = 0
    task_retries: int = 0
    overlap_policy: str = ""
    max_queued: int = 0
    priority: int = 0
    retry_delay_ms: int = 0
    retry_backoff: float = 0.0
    retry_delay_max_ms: int = 0

    # Wire names, in the order protocol.DeclaredJob has them; the first
    # three are always sent. (ClassVar: not fields of the dataclass.)
    _WIRE: ClassVar[tuple[tuple[str, str], ...]] = (
        ("name", "name"), ("description", "description"), ("schedule_type", "scheduleType"),
        ("schedule_expression", "scheduleExpression"), ("time_zone", "timeZone"),
        ("execution_mode", "executionMode"), ("processor", "processor"), ("params", "params"),
        ("max_instances", "maxInstances"), ("task_concurrency", "taskConcurrency"), ("timeout_ms", "timeoutMs"),
        ("instance_retries", "instanceRetries"), ("task_retries", "taskRetries"),
        ("overlap_policy", "overlapPolicy"), ("max_queued", "maxQueued"), ("priority", "priority"),
        ("retry_delay_ms", "retryDelayMs"), ("retry_backoff", "retryBackoff"),
        ("retry_delay_max_ms", "retryDelayMaxMs"),
    )
    _ALWAYS: ClassVar[tuple[str, ...]] = ("name", "schedule_type", "processor")

    def problem(self) -> tuple[str, str] | None:
        """The first field whose type the wire cannot carry, as (field,
        reason), or None. Only the types: what the values mean is the
        server's to check, as for the Go SDK."""
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in (str, "str"):
                if not isinstance(v, str):
                    return f.name, "%r is not a str" % (v,)
            elif f.type in (int, "int"):
                if isinstance(v, bool) or not isinstance(v, int):
                    return f.name, "%r is not an int" % (v,)
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                return f.name, "%r is not a finite number" % (v,)
        return None

    def to_wire(self) -> dict[str, str | int | float]:
        """The job as the hello carries it: camelCase, defaults left out."""
        out: dict[str, str | int | float] = {}
        for attr, key in self._WIRE:
            v = getattr(self, attr)
            if attr in self._ALWAYS or v:
                out[key] = v
        return out

    @classmethod
    def from_wire(cls, d: object) -> Job:
        """A Job from its wire form (camelCase keys, as in the agent's
        JOBWHEEL_JOBS_FILE); an unknown key raises ValueError naming it."""
        if not isinstance(d, dict):
            raise ValueError("a job must be an object, not %r" % (d,))
        names = {key: attr for attr, key in cls._WIRE}
        kw: dict[str, Any] = {}
        for key, v in d.items():
            if key not in names:
                raise ValueError("unknown field %r" % key)
            kw[names[key]] = v
        missing = [key for attr, key in cls._WIRE if attr in cls._ALWAYS and names[key] not in kw]
        if missing:
            raise ValueError("missing field %s" % ", ".join(repr(m) for m in missing))
        return cls(**kw)


class JobsSettings(TypedDict):
    """The Worker settings read_jobs_file reads: pass them on with
    ``Worker.from_env(**settings)``."""

    job_set: str
    jobs: list[Job]
    jobs_dry_run: bool


def read_jobs_file(path: str | os.PathLike[str]) -> JobsSettings:
    """Reads a declaration in the agent's JOBWHEEL_JOBS_FILE format,
    ``{"set": "…", "dryRun": false, "jobs": [{"name", "scheduleType",
    "processor", …}]}``, into Worker settings: a dict of job_set, jobs and
    jobs_dry_run, so ``Worker.from_env(**read_jobs_file(path))``. A file
    that cannot be read, or has an unknown field, raises ConfigError
    (field "jobs_file") naming the path and the problem."""
    from .worker import ConfigError  # here: worker imports this module

    def bad(reason: object) -> ConfigError:
        return ConfigError("jobs_file", "%s: %s" % (path, reason))

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise bad(e) from None
    if not isinstance(doc, dict):
        raise bad("not a JSON object")
    for key in doc:
        if key not in ("set", "dryRun", "jobs"):
            raise bad("unknown field %r" % key)
    if not isinstance(doc.get("set"), str) or not doc["set"]:
        raise bad('"set" must name the set of jobs')
    dry = doc.get("dryRun", False)
    if not isinstance(dry, bool):
        raise bad('"dryRun" must be true or false')
    raw = doc.get("jobs") or []
    if not isinstance(raw, list):
        raise bad('"jobs" must be a list')
    jobs: list[Job] = []
    for i, d in enumerate(raw):

        try:
            jobs.append(Job.from_wire(d))
        except (ValueError, TypeError) as e:
            raise bad("jobs[%d]: %s" % (i, e)) from None
    return {"job_set": doc["set"], "jobs": jobs, "jobs_dry_run": dry}
