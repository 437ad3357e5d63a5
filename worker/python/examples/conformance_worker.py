"""The Python SDK's worker for the conformance kit (worker/conformance):
it registers the kit's processors (worker/conformance/README.md) and reads
its settings from the environment the kit sets.

    go run ./worker/conformance -- python3 worker/python/examples/conformance_worker.py

It exits 0 after SIGTERM or SIGINT, 1 when the server refuses the secret,
2 on a configuration error.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import jobwheel  # noqa: E402


def succeed(ctx: jobwheel.TaskContext) -> str:
    """Logs {"lines": N} lines "line i", padded to {"size": S} bytes."""
    p = json.loads(ctx.job_params) if ctx.job_params else {}
    n, size = p.get("lines", 3), p.get("size", 0)
    for i in range(1, n + 1):
        text = "line %d" % i
        if len(text) < size:
            text += " " + "x" * (size - len(text) - 1)
        ctx.log.info(text)
    return "wrote %d lines; params=%s" % (n, ctx.instance_params)


def fail(ctx: jobwheel.TaskContext) -> str:
    ctx.log.info("failing")
    raise RuntimeError("conformance failure")


def block(ctx: jobwheel.TaskContext) -> str:
    ctx.log.info("blocking")
    ctx.wait_cancelled()
    raise RuntimeError("cancelled")


def map_root_or_square(ctx: jobwheel.TaskContext) -> str:
    """ROOT: maps 1..k then k+1..2k as subtasks "square"; MAP: squares."""
    if ctx.is_root:
        k = int(ctx.job_params)
        ctx.map(list(range(1, k + 1)), "square")
        ctx.map(list(range(k + 1, 2 * k + 1)), "square")
        return "mapped %d subtasks" % (2 * k)
    n = ctx.payload_json()
    return str(n * n)


def reduce_squares(ctx: jobwheel.TaskContext, results: jobwheel.Results) -> str:
    return "sum %d" % sum(int(r.result) for r in results if r.name == "square" and r.success)


def workflow(ctx: jobwheel.TaskContext) -> str:
    ctx.set_workflow_value("doubled", ctx.workflow_context.get("n", 0) * 2)
    ctx.set_workflow_value("echo", ctx.upstream.get("up"))
    return "node %s of run %d" % (ctx.workflow_node, ctx.workflow_run_id)


def main() -> int:
    logging.basicConfig(level=logging.DEBUG, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(threadName)s %(message)s")
    try:
        declared: dict[str, Any] = {}  # the jobs check's declaration, in the agent's file format
        if os.environ.get("JOBWHEEL_JOBS_FILE"):
            declared.update(jobwheel.read_jobs_file(os.environ["JOBWHEEL_JOBS_FILE"]))
        w = jobwheel.Worker.from_env(name="conformance-python", **declared)
    except jobwheel.ConfigError as e:
        print("conformance_worker: %s" % e, file=sys.stderr)
        return 2
    w.register("conformance.succeed", succeed)
    w.register("conformance.fail", fail)
    w.register("conformance.block", block)
    w.register("conformance.map", map_root_or_square, reduce=reduce_squares)
    w.register("conformance.workflow", workflow)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: w.stop())
    try:
        w.run()
    except jobwheel.AuthError as e:
        print("conformance_worker: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
