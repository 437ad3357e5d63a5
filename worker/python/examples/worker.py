"""An example jobwheel worker in Python.

    JOBWHEEL_SERVERS=http://localhost:7700 JOBWHEEL_APP=orders \\
    JOBWHEEL_APP_SECRET='jwa_…' python3 worker/python/examples/worker.py

It runs the GO processors below for its app: create a job with
processorType GO and processor "python.hello" (or another name here) and
run it. Settings are read by Worker.from_env: JOBWHEEL_SERVERS,
JOBWHEEL_APP, JOBWHEEL_APP_SECRET, JOBWHEEL_WORKER_TAGS,
JOBWHEEL_WORKER_SLOTS, JOBWHEEL_WORKER_NAME; and, as the agent does,
JOBWHEEL_JOBS_FILE: jobs it declares in code (jobwheel.read_jobs_file),
created or updated on connect and disabled once no longer declared.
SIGINT or SIGTERM stops it gracefully (running tasks are cancelled and
reported, exit status 0); a refused secret exits 1, a bad setting 2.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from typing import Any

# The package is next door; an installed copy (or PYTHONPATH) works too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import jobwheel  # noqa: E402


def hello(ctx: jobwheel.TaskContext) -> str:
    """Greets whoever the parameters name, a line at a time."""
    who = ctx.params or "world"
    for i in range(3):
        ctx.log.info("hello, %s", who, line=i + 1, instance=ctx.instance_id)
    return "greeted %s three times" % who


def sleep(ctx: jobwheel.TaskContext) -> str:
    """Sleeps for the number of seconds in its parameters (default 5),
    logging every second; returns early when stopped."""
    try:
        seconds = float(ctx.params or "5")
    except ValueError:
        raise ValueError("python.sleep: parameters %r are not a number of seconds" % ctx.params)
    ctx.log.info("going to sleep", seconds=seconds)
    slept = 0.0
    while slept < seconds:
        if ctx.wait_cancelled(min(1.0, seconds - slept)):
            ctx.log.warning("woken early", reason=ctx.cancel_reason)
            return "slept %ds of %gs" % (slept, seconds)
        slept += min(1.0, seconds - slept)
        ctx.log.info("still sleeping", slept=slept)
    return "slept %gs" % seconds


def squares(ctx: jobwheel.TaskContext) -> str:
    """MAP_REDUCE: the root maps 1..n (n from the parameters, default 5);
    each subtask squares its number."""
    if ctx.is_root:
        n = int(ctx.params or "5")
        ctx.map(list(range(1, n + 1)), "square")
        return "mapped %d subtasks" % n
    return str(ctx.payload_json() ** 2)


def sum_squares(ctx: jobwheel.TaskContext, results: jobwheel.Results) -> str:
    """Sums the squares in one pass over the results: from a server that
    pages them (results.paged) they arrive a page at a time, so only the
    running total is kept, however many subtasks there were."""
    total = n = 0
    for r in results:
        n += 1
        if r.name == "square" and r.success:
            total += int(r.result)
    ctx.log.info("summed", tasks=n, total=total)
    return "sum of squares = %d" % total


def main() -> int:
    logging.basicConfig(level=os.environ.get("JOBWHEEL_LOG_LEVEL", "INFO").upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        declared: dict[str, Any] = {}
        if os.environ.get("JOBWHEEL_JOBS_FILE"):
            declared.update(jobwheel.read_jobs_file(os.environ["JOBWHEEL_JOBS_FILE"]))
        w = jobwheel.Worker.from_env(**declared)
    except jobwheel.ConfigError as e:
        print("worker.py: %s" % e, file=sys.stderr)
        return 2
    w.register("python.hello", hello)
    w.register("python.sleep", sleep)
    w.register("python.squares", squares, reduce=sum_squares)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: w.stop())
    logging.getLogger("jobwheel").info("worker %s starting for app %s", w.worker_id, w.app)
    try:
        w.run()
    except jobwheel.AuthError as e:
        print("worker.py: %s (set JOBWHEEL_APP and JOBWHEEL_APP_SECRET)" % e, file=sys.stderr)
        return 1
    logging.getLogger("jobwheel").info("worker stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
