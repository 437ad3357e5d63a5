"""jobwheel: a worker SDK for the jobwheel job scheduler, in Python.

A Python service embeds a Worker, registers processors, and runs it: the
worker finds the server that owns its app, keeps one websocket to it, runs
the tasks it is sent, and ships their status, results and log lines back,
re-sending whatever a lost connection left unacknowledged.

    import jobwheel

    w = jobwheel.Worker.from_env()          # JOBWHEEL_APP, JOBWHEEL_APP_SECRET, JOBWHEEL_SERVERS…
    def sync_orders(ctx: jobwheel.TaskContext) -> str:
        ctx.log.info("syncing", params=ctx.params)
        return "synced 42 orders"
    w.register("sync-orders", sync_orders)
    w.run()                                 # blocks until w.stop()

Then create a job with processorType GO and processor "sync-orders": the
server treats processor names opaquely, whatever language serves them.
Or declare it in code, next to its processor: the server creates or
updates it on connect and disables it once no longer declared:

    w = jobwheel.Worker.from_env(job_set="orders-service", jobs=[
        jobwheel.Job(name="sync-orders", schedule_type="CRON",
                     schedule_expression="0 */5 * * * ?", processor="sync-orders")])

Standard library only; Python 3.9 or newer; typed (py.typed): a processor
is a ``jobwheel.Processor``, ``Callable[[TaskContext], str | None]``. The
protocol is specified in docs/protocol.md of the jobwheel repository.
"""

from __future__ import annotations

from .jobs import Job, JobChange, JobsSettings, read_jobs_file
from .outbox import MapRefused
from .task import (MapError, PreProcessor, Processor, Results, ResultsError, ResultsProcessor, TaskContext, TaskLogger,
                   TaskResult)
from .worker import SDK_VERSION, AuthError, ConfigError, LogLevel, Worker

__all__ = [
    "Worker",
    "Job",
    "JobChange",
    "JobsSettings",
    "read_jobs_file",
    "Processor",
    "PreProcessor",
    "ResultsProcessor",
    "LogLevel",
    "TaskContext",

    "TaskLogger",
    "TaskResult",
    "Results",
    "ResultsError",
    "ConfigError",
    "AuthError",
    "MapError",
    "MapRefused",
    "SDK_VERSION",
]
