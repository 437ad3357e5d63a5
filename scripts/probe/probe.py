#!/usr/bin/env python3
"""The attacker probe (docs/security.md, "Attacker probe").

Tries, as an authenticated EDITOR of one app (tenant A), every expression,
fan-out and query surface a jobwheel server offers, while another app
(tenant B) has a job firing every second. For each attack it records what
was sent, what the server answered, the server's CPU time and RSS delta
(/proc), rows written (PostgreSQL), wall time and tenant B's lateness
(actualTriggerTime - expectedTriggerTime of its fires during the attack,
and fires missed), and flags what is over budget.

Standard library only. run.sh starts the server and workers and calls
this with:

  probe.py setup   -> writes state.json (tokens, app secrets, job ids)
  probe.py attack  -> runs every attack, prints a Markdown table and
                      writes results.json

Environment: PROBE_URL (http://127.0.0.1:PORT), PROBE_DB (PostgreSQL URL),
PROBE_SERVER_PID, PROBE_ADMIN_PASSWORD, PROBE_DIR (where state goes),
PROBE_ONLY (comma-separated attack ids to run, default all).
"""

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone

URL = os.environ.get("PROBE_URL", "http://127.0.0.1:7791")
DB = os.environ.get("PROBE_DB", "")
DIR = os.environ.get("PROBE_DIR", "/tmp/jobwheel-probe")
STATE = os.path.join(DIR, "state.json")
TICK = os.sysconf("SC_CLK_TCK")
APP_A, APP_B = "probe-a", "probe-b"


# ---------------------------------------------------------------- plumbing

def post(body, token=None, content_type="application/json", timeout=120):
    """POSTs raw bytes to /graphql; returns (http status, parsed or text, seconds)."""
    req = urllib.request.Request(URL + "/graphql", data=body, method="POST")
    req.add_header("Content-Type", content_type)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, text = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read()
    except Exception as e:  # a crash, a reset, a timeout
        return 0, "%s: %s" % (type(e).__name__, e), time.monotonic() - t0
    dt = time.monotonic() - t0
    try:
        return status, json.loads(text), dt
    except ValueError:
        return status, text[:300].decode("utf-8", "replace"), dt


def gql(query, variables=None, token=None, timeout=120):
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    return post(body, token, timeout=timeout)


def must(query, variables=None, token=None):
    status, out, _ = gql(query, variables, token)
    if not isinstance(out, dict) or out.get("errors"):
        raise SystemExit("probe: %s failed: %s %s" % (query.split("(")[0], status, out))
    return out["data"]


def answer(status, out):
    """What the server answered, in one short line."""
    if isinstance(out, dict) and out.get("errors"):
        e = out["errors"][0]
        code = (e.get("extensions") or {}).get("code", "")
        more = " (+%d more)" % (len(out["errors"]) - 1) if len(out["errors"]) > 1 else ""
        return "%d %s: %s%s" % (status, code, e.get("message", "")[:160], more)
    if isinstance(out, dict):
        return "%d ok (%d bytes)" % (status, len(json.dumps(out)))
    return "%d %s" % (status, str(out)[:160])


def proc(pid):
    """CPU seconds (user+system) and RSS/peak RSS in MiB of a process."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        rss = hwm = 0
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) / 1024
        return {"cpu": cpu, "rss": rss, "hwm": hwm, "alive": True}
    except OSError:
        return {"cpu": 0, "rss": 0, "hwm": 0, "alive": False}


TABLES = ["instances", "tasks", "instance_logs", "workflow_instances", "workflow_node_runs",
          "workflow_foreach_elements", "workflow_versions", "audit_log"]


def rows():
    q = "select " + ", ".join("(select count(*) from %s)" % t for t in TABLES)
    try:
        out = subprocess.run(["psql", DB, "-Atc", q], capture_output=True, text=True, timeout=60).stdout.strip()
        return dict(zip(TABLES, (int(x) for x in out.split("|"))))
    except Exception:
        return {}


def db_size():
    try:
        out = subprocess.run(["psql", DB, "-Atc", "select pg_database_size(current_database())"],
                             capture_output=True, text=True, timeout=60).stdout.strip()
        return int(out) / (1 << 20)
    except Exception:
        return 0.0


def parse_time(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def iso(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def lateness(st, t0, t1):
    """Tenant B's fires expected in [t0, t1]: worst lateness (s) and fires missed."""
    q = """query($app: String!, $job: ID!, $from: Time, $first: Int) {
      instances(app: $app, jobId: $job, from: $from, first: $first) {
        edges { node { expectedTriggerTime actualTriggerTime startedTime } } } }"""
    status, out, _ = gql(q, {"app": APP_B, "job": st["jobB"], "from": iso(t0 - 5), "first": 500},
                         st["ownerB"])
    if not isinstance(out, dict) or out.get("errors") or not out.get("data"):
        return None, None, answer(status, out)
    worst, started, seen = 0.0, 0.0, set()
    for e in out["data"]["instances"]["edges"]:
        n = e["node"]
        if not n["expectedTriggerTime"]:
            continue
        exp = parse_time(n["expectedTriggerTime"])
        if exp < t0 or exp > t1:
            continue
        seen.add(round(exp))
        act = parse_time(n["actualTriggerTime"]) if n["actualTriggerTime"] else time.time()
        worst = max(worst, act - exp)
        if n["startedTime"]:
            started = max(started, parse_time(n["startedTime"]) - exp)
    want = max(int(t1 - t0) - 1, 0)
    # tenant B's workflow: a DECISION every second; how late each run ended.
    q = """query($app: String!, $wf: ID) { workflowInstances(app: $app, workflowId: $wf, first: 500) {
      edges { node { expectedTriggerTime finishedTime status } } } }"""
    status, out, _ = gql(q, {"app": APP_B, "wf": st["wfB"]}, st["ownerB"])
    wf_late, wf_runs = None, 0
    if isinstance(out, dict) and out.get("data"):
        for e in out["data"]["workflowInstances"]["edges"]:
            n = e["node"]
            if not n["expectedTriggerTime"]:
                continue
            exp = parse_time(n["expectedTriggerTime"])
            if exp < t0 or exp > t1:
                continue
            wf_runs += 1
            end = parse_time(n["finishedTime"]) if n["finishedTime"] else time.time()
            wf_late = max(wf_late or 0.0, end - exp)
    return (worst, started, wf_late), max(want - len(seen), 0), "%d fires, %d workflow runs" % (len(seen), wf_runs)


# ------------------------------------------------------------------ setup

def setup():
    admin = must('mutation($p: String!) { login(username: "admin", password: $p) { token } }',
                 {"p": os.environ["PROBE_ADMIN_PASSWORD"]})["login"]["token"]
    st = {"admin": admin}
    for app, key in ((APP_A, "secretA"), (APP_B, "secretB")):
        st[key] = must('mutation($n: String!) { createApp(name: $n) { secret } }', {"n": app}, admin)["createApp"]["secret"]
    must('mutation { createUser(username: "mallory", password: "mallory-pw-1") { id } }', None, admin)
    must('mutation { setAppRole(app: "%s", username: "mallory", role: EDITOR) { id } }' % APP_A, None, admin)
    st["editor"] = must('mutation { login(username: "mallory", password: "mallory-pw-1") { token } }')["login"]["token"]
    st["ownerB"] = admin
    job = """mutation($in: JobInput!) { createJob(input: $in) { id } }"""
    st["jobB"] = must(job, {"in": {"app": APP_B, "name": "heartbeat", "scheduleType": "FIXED_RATE",
                                   "scheduleExpression": "1s", "processorType": "SHELL", "processor": "true",
                                   "maxInstances": 5}}, admin)["createJob"]["id"]
    st["wfB"] = must("mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }",
                     {"in": {"app": APP_B, "name": "decide", "scheduleType": "FIXED_RATE", "scheduleExpression": "1s",
                             "maxInstances": 5, "nodes": [{"key": "d", "type": "DECISION", "expression": "1 + 1 == 2"}],
                             "edges": []}}, admin)["createWorkflow"]["id"]
    ed = st["editor"]
    st["jobTrue"] = must(job, {"in": {"app": APP_A, "name": "true", "scheduleType": "WORKFLOW",
                                      "processorType": "SHELL", "processor": "true", "maxInstances": 10000,
                                      "workerFilter": {"tags": ["probe-agent"]}}}, ed)["createJob"]["id"]
    st["jobMap"] = must(job, {"in": {"app": APP_A, "name": "map", "scheduleType": "API", "executionMode": "MAP",
                                     "processorType": "GO", "processor": "probe-map", "taskConcurrency": 50,
                                     "workerFilter": {"tags": ["probe-go"]}}}, ed)["createJob"]["id"]
    st["jobLog"] = must(job, {"in": {"app": APP_A, "name": "log", "scheduleType": "API",
                                     "processorType": "GO", "processor": "probe-log", "maxInstances": 10,
                                     "workerFilter": {"tags": ["probe-go"]}}}, ed)["createJob"]["id"]
    st["jobResult"] = must(job, {"in": {"app": APP_A, "name": "result", "scheduleType": "API",
                                        "processorType": "GO", "processor": "probe-result", "maxInstances": 10,
                                        "workerFilter": {"tags": ["probe-go"]}}}, ed)["createJob"]["id"]
    with open(STATE, "w") as f:
        json.dump(st, f)
    print("export SECRET_A=%s SECRET_B=%s" % (st["secretA"], st["secretB"]))


# --------------------------------------------------------------- websocket

def ws_open(token):
    """A graphql-transport-ws connection, acknowledged; returns the socket."""
    host, port = URL.split("//")[1].split(":")
    s = socket.create_connection((host, int(port)), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /graphql HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
               "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n" % (host, port, key)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            raise OSError("closed during handshake")
        head += chunk
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise OSError(head.split(b"\r\n")[0].decode())
    ws_send(s, {"type": "connection_init", "payload": {"Authorization": "Bearer " + token}})
    return s


def ws_drain(s):
    """Whatever the server sent on a socket so far (raw frames)."""
    s.settimeout(0.2)
    got = b""
    while True:
        try:
            chunk = s.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    return got


def ws_send(s, msg):
    data = json.dumps(msg).encode()
    mask = os.urandom(4)
    n = len(data)
    if n < 126:
        head = bytes([0x81, 0x80 | n])
    elif n < 65536:
        head = bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + n.to_bytes(8, "big")
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


# ---------------------------------------------------------------- attacks

def wf_input(name, nodes, edges, **kw):
    d = {"app": APP_A, "name": name, "scheduleType": "API", "nodes": nodes, "edges": edges}
    d.update(kw)
    return d


CREATE_WF = "mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }"
RUN_WF = "mutation($id: ID!, $c: JSON) { runWorkflow(id: $id, context: $c) { id } }"
WF_STATE = """query($id: ID!) { workflowInstance(id: $id) { status reason budgetUsed
  nodes { key status reason message resultCut items } } }"""


def run_decision(st, name, expr, wait=40, kind="DECISION", extra=None):
    """Saves a one-node workflow with the expression, runs it, waits for the end."""
    ed = st["editor"]
    node = {"key": "n", "type": kind, "expression": expr}
    if kind == "FOREACH":
        node.update({"jobId": st["jobTrue"], "parallelism": 1000})
    node.update(extra or {})
    status, out, dt = gql(CREATE_WF, {"in": wf_input(name, [node], [])}, ed)
    if not isinstance(out, dict) or out.get("errors"):
        return "save: " + answer(status, out)
    wf = out["data"]["createWorkflow"]["id"]
    return run_wf(st, wf, wait)


def run_wf(st, wf, wait, context=None):
    ed = st["editor"]
    status, out, _ = gql(RUN_WF, {"id": wf, "c": context}, ed)
    if not isinstance(out, dict) or out.get("errors"):
        return "run: " + answer(status, out)
    run = out["data"]["runWorkflow"]["id"]
    deadline = time.time() + wait
    last = None
    while time.time() < deadline:
        status, out, _ = gql(WF_STATE, {"id": run}, ed)
        if isinstance(out, dict) and out.get("data") and out["data"]["workflowInstance"]:
            last = out["data"]["workflowInstance"]
            if last["status"] in ("SUCCEEDED", "FAILED", "STOPPED", "CANCELED"):
                break
        time.sleep(0.5)
    else:
        gql("mutation($id: ID!) { stopWorkflowInstance(id: $id) { status } }", {"id": run}, ed)
        if last:
            last["status"] += " after %ds (stopped)" % wait
    if not last:
        return "run %s: no state" % run
    bad = [n for n in last["nodes"] if n["status"] != "SUCCEEDED"] or last["nodes"][:1]
    n = bad[0] if bad else {}
    return "run %s; node %s %s %s" % (last["status"], n.get("status", ""), n.get("reason", ""),
                                      (n.get("message") or "")[:140])


def nest(depth, inner):
    return "(" * depth + inner + ")" * depth


def attacks(st):
    ed = st["editor"]
    A = []

    def attack(id, surface, what, budget):
        def deco(fn):
            A.append((id, surface, what, budget, fn))
            return fn
        return deco

    # ---- expressions (DECISION / FOREACH)
    @attack("E1", "DECISION", "CPU bomb `let r = 1..40000; all(r, all(r, true))`", "100 ms CPU")
    def _():
        return run_decision(st, "e1", "let r = 1..40000; all(r, all(r, true))")

    @attack("E2", "DECISION", "constant range `1..999999` (save)", "refused at save")
    def _():
        return run_decision(st, "e2", "len(1..999999) > 0")

    @attack("E3", "DECISION", "string doubling from repeat(\"a\", 999999) 9 times", "8 MiB")
    def _():
        e = 'let a = repeat("a", 999999); let b = a+a; let c = b+b; let d = c+c; let e = d+d; ' \
            'let f = e+e; let g = f+f; let h = g+g; let i = h+h; len(i) > 0'
        return run_decision(st, "e3", e)

    @attack("E4", "DECISION", "repeat with a computed count `repeat(\"ab\", int(\"9\") * 100000000)`", "8 MiB")
    def _():
        return run_decision(st, "e4", 'len(repeat("ab", int("9") * 100000000)) > 0')

    @attack("E5", "DECISION", "nested maps `map(1..500000, ({a: #, b: [#, #, {c: #}]}))`", "8 MiB")
    def _():
        return run_decision(st, "e5", "len(map(1..500000, ({a: #, b: [#, #, {c: #}]}))) > 0")

    @attack("E6", "DECISION", "sort/reduce over computed range `sort(map(1..int(\"500000\"), -#))`", "100 ms CPU")
    def _():
        return run_decision(st, "e6", 'len(sort(map(1..int("500000"), -#))) > 0')

    @attack("E7", "DECISION", "regexp built at run time, 200k-char pattern `repeat(\"(a|b)*\", 40000)`", "100 ms / 8 MiB")
    def _():
        return run_decision(st, "e7", '"aaaa" matches repeat("(a|b)*", 40000)')

    @attack("E8", "DECISION", "regexp on a 4 MiB string in a loop `all(1..1000, {s matches \"(x+x+)+y\"})`", "100 ms CPU")
    def _():
        return run_decision(st, "e8", 'let s = repeat("x", 4000000); all(1..1000, {s matches "(x+x+)+y"})')

    @attack("E9", "DECISION (save)", "deep nesting: 50,000 parentheses; 1,000 (fits 2 KiB)", "2 KiB expression")
    def _():
        a = run_decision(st, "e9", nest(50000, "1") + " > 0")
        return a + " | 1,000: " + run_decision(st, "e9b", nest(1000, "1") + " > 0")

    @attack("E10", "DECISION (save)", "wide expression: `1+1+…` 150,000 terms (~300 KB)", "2 KiB expression")
    def _():
        return run_decision(st, "e10", "+".join(["1"] * 150000) + " > 0")

    @attack("E11", "DECISION (save)", "nested lists in 2 KiB: `let a = [1..99999]; let b = [a,a,a,…]…` 4 levels of 30", "8 MiB")
    def _():
        e = "let a = map(1..99999, #); let b = [" + ",".join(["a"] * 30) + "]; let c = [" + ",".join(["b"] * 30) + \
            "]; let d = [" + ",".join(["c"] * 30) + "]; len(toJSON(d)) > 0"
        return run_decision(st, "e11", e)

    @attack("E12", "DECISION result", "value of 1 MiB `repeat(\"a\", int(\"1048576\"))` as the node's result", "64 KiB result")
    def _():
        return run_decision(st, "e12", 'repeat("a", int("1048576"))')

    @attack("E13", "DECISION", "fromJSON of a 6 MiB nested document built at run time", "8 MiB")
    def _():
        return run_decision(st, "e13", 'len(fromJSON(repeat("[", int("3000000")) + repeat("]", int("3000000")))) > 0')

    @attack("E14", "DECISION", "100 runs of a CPU-bomb DECISION at once", "100 ms CPU each, others not blocked")
    def _():
        status, out, _ = gql(CREATE_WF, {"in": wf_input("e14", [{"key": "n", "type": "DECISION",
                             "expression": "let r = 1..40000; all(r, all(r, true))"}], [], maxInstances=100)}, ed)
        if out.get("errors"):
            return "save: " + answer(status, out)
        wf = out["data"]["createWorkflow"]["id"]
        runs = []
        for _ in range(100):
            s2, o2, _ = gql(RUN_WF, {"id": wf}, ed)
            if isinstance(o2, dict) and o2.get("data"):
                runs.append(o2["data"]["runWorkflow"]["id"])
            else:
                return "run: " + answer(s2, o2)
        # every run ends; count how.
        deadline, counts = time.time() + 90, {}
        q = 'query($app: String!, $wf: ID) { workflowInstances(app: $app, workflowId: $wf, first: 500) { edges { node { status nodes { reason } } } } }'
        while time.time() < deadline:
            _, o3, _ = gql(q, {"app": APP_A, "wf": wf}, ed)
            counts = {}
            for e in o3["data"]["workflowInstances"]["edges"]:
                k = e["node"]["status"] + "/" + ",".join(n["reason"] for n in e["node"]["nodes"])
                counts[k] = counts.get(k, 0) + 1
            if all(k.split("/")[0] in ("FAILED", "SUCCEEDED", "STOPPED") for k in counts):
                break
            time.sleep(1)
        return "100 runs: %s" % counts

    @attack("E15", "DECISION", "regexp scan: a 2 MB text against a 300-byte pattern, 10 runs at once",
            "100 ms CPU each, others not blocked")
    def _():
        e = 'let s = repeat("ab", int("1000000")); s matches "' + "(a|b)*" * 50 + 'z"'
        status, out, _ = gql(CREATE_WF, {"in": wf_input("e15", [{"key": "n", "type": "DECISION", "expression": e}], [],
                                                         maxInstances=100)}, ed)
        if out.get("errors"):
            return "save: " + answer(status, out)
        wf = out["data"]["createWorkflow"]["id"]
        runs = [gql(RUN_WF, {"id": wf}, ed)[1]["data"]["runWorkflow"]["id"] for _ in range(10)]
        ans = ""
        for r in runs:
            deadline = time.time() + 120
            while time.time() < deadline:
                _, o, _ = gql(WF_STATE, {"id": r}, ed)
                wi = o["data"]["workflowInstance"]
                if wi["status"] in ("SUCCEEDED", "FAILED", "STOPPED", "CANCELED"):
                    break
                time.sleep(0.5)
            ans = ans or "%s %s %s" % (wi["status"], wi["nodes"][0]["reason"], wi["nodes"][0]["message"][:140])
        return "10 runs; first: " + ans

    @attack("F1", "FOREACH", "list `1..1000000` (save)", "10,000 elements")
    def _():
        return run_decision(st, "f1", "1..1000000", kind="FOREACH")

    @attack("F2", "FOREACH", "computed list `1..int(\"1000000\")`", "10,000 elements")
    def _():
        return run_decision(st, "f2", '1..int("1000000")', kind="FOREACH")

    @attack("F3", "FOREACH", "10,000 elements of 200 bytes `map(1..int(\"10000\"), repeat(\"x\", 200))`", "1 MiB list")
    def _():
        return run_decision(st, "f3", 'map(1..int("10000"), repeat("x", 200))', kind="FOREACH")

    @attack("F4", "FOREACH", "5 FOREACH nodes over 10,000 elements, parallelism 1000, a SHELL `true` each (50,000 instances)",
            "budget 100,000; batches ≤ parallelism")
    def _():
        nodes = [{"key": "f%d" % i, "type": "FOREACH", "expression": 'map(1..int("10000"), #)',
                  "jobId": st["jobTrue"], "parallelism": 1000} for i in range(5)]
        status, out, _ = gql(CREATE_WF, {"in": wf_input("f4", nodes, [])}, ed)
        if out.get("errors"):
            return "save: " + answer(status, out)
        wf = out["data"]["createWorkflow"]["id"]
        s2, o2, _ = gql(RUN_WF, {"id": wf}, ed)
        run = o2["data"]["runWorkflow"]["id"]
        time.sleep(25)
        t0, tries, first = time.time(), 0, ""
        while True:
            tries += 1
            s3, o3, dt = gql("mutation($id: ID!) { stopWorkflowInstance(id: $id) { status budgetUsed } }", {"id": run}, ed)
            first = first or answer(s3, o3)
            if isinstance(o3, dict) and o3.get("data") or time.time() - t0 > 120:
                break
        return "ran 25 s then stop: first answer %s; %d tries, %.1f s until %s" % (
            first, tries, time.time() - t0, json.dumps(o3.get("data") if isinstance(o3, dict) else o3))

    @attack("F5", "NESTED", "3 workflows of 25 nodes nesting each other (651 runs, 16,275 nodes); then 4 levels", "budget 100,000")
    def _():
        leaf = must(CREATE_WF, {"in": wf_input("n-leaf", [{"key": "j%d" % i, "type": "JOB", "jobId": st["jobTrue"]}
                                                          for i in range(25)], [])}, ed)["createWorkflow"]["id"]
        prev, res = leaf, []
        for level in range(1, 4):
            nodes = [{"key": "n%d" % i, "type": "NESTED", "workflowId": prev} for i in range(25)]
            status, out, _ = gql(CREATE_WF, {"in": wf_input("n-l%d" % level, nodes, [])}, ed)
            if out.get("errors"):
                res.append("level %d save: %s" % (level, answer(status, out)))
                break
            prev = out["data"]["createWorkflow"]["id"]
            res.append("level %d saved" % level)
        return "; ".join(res)

    @attack("F6", "workflow definition", "500 nodes and every forward edge that fits in 1 MiB", "500 nodes, 1 MiB")
    def _():
        nodes = [{"key": "k%d" % i, "type": "DECISION", "expression": "true"} for i in range(500)]
        edges = [{"from": "k%d" % i, "to": "k%d" % j} for i in range(500) for j in range(i + 1, 500)][:24000]
        status, out, dt = gql(CREATE_WF, {"in": wf_input("f6", nodes, edges)}, ed)
        if out.get("errors"):
            return "save (%d edges, %.1f s): %s" % (len(edges), dt, answer(status, out))
        return "saved %d edges in %.1f s; %s" % (len(edges), dt, run_wf(st, out["data"]["createWorkflow"]["id"], 60))

    @attack("F7", "workflow definition", "501 nodes; then a cycle of 500", "500 nodes, acyclic")
    def _():
        nodes = [{"key": "k%d" % i, "type": "DECISION", "expression": "true"} for i in range(501)]
        s1, o1, _ = gql(CREATE_WF, {"in": wf_input("f7", nodes, [])}, ed)
        edges = [{"from": "k%d" % i, "to": "k%d" % ((i + 1) % 500)} for i in range(500)]
        s2, o2, _ = gql(CREATE_WF, {"in": wf_input("f7b", nodes[:500], edges)}, ed)
        return answer(s1, o1) + " | " + answer(s2, o2)

    @attack("F8", "workflow context", "runWorkflow with a 1 MiB context, 20 times", "1 MiB context")
    def _():
        wf = must(CREATE_WF, {"in": wf_input("f8", [{"key": "n", "type": "DECISION", "expression": "true"}], [])},
                  ed)["createWorkflow"]["id"]
        big = {"x": "y" * (1 << 20)}
        s1, o1, _ = gql(RUN_WF, {"id": wf, "c": big}, ed)
        ok = 0
        for _ in range(20):
            s2, o2, _ = gql(RUN_WF, {"id": wf, "c": {"x": "y" * 900000}}, ed)
            ok += isinstance(o2, dict) and not o2.get("errors")
        return "1 MiB+: %s | 900 KB x20: %d accepted" % (answer(s1, o1), ok)

    # ---- workers (MAP subtasks, logs, results)
    def run_job(job, params, wait):
        s, o, _ = gql('mutation($id: ID!, $p: String) { runJob(id: $id, params: $p) { id } }', {"id": job, "p": params}, ed)
        if not isinstance(o, dict) or o.get("errors"):
            return None, "runJob: " + answer(s, o)
        inst = o["data"]["runJob"]["id"]
        deadline, last = time.time() + wait, None
        q = 'query($id: ID!) { instance(id: $id) { status reason result tasks { total succeeded waiting } } }'
        while time.time() < deadline:
            _, o2, _ = gql(q, {"id": inst}, ed)
            last = o2["data"]["instance"]
            if last["status"] in ("SUCCEEDED", "FAILED", "STOPPED", "CANCELED"):
                break
            time.sleep(1)
        else:
            gql('mutation($id: ID!) { stopInstance(id: $id) { status } }', {"id": inst}, ed)
            last["status"] += " after %ds (stopped)" % wait
        return inst, last

    @attack("W1", "MAP (worker)", "a ROOT task maps 200,000 subtasks", "JOBWHEEL_MAP_MAX_TASKS_PER_INSTANCE, _BYTES_")
    def _():
        inst, last = run_job(st["jobMap"], "200000", 120)
        if inst is None:
            return last
        return "%s %s tasks=%s %s" % (last["status"], last["reason"], json.dumps(last["tasks"]), last["result"][:80])

    @attack("W2", "logs (worker)", "one task writes 200,000 log lines of 1 KiB", "frame/batch bounds")
    def _():
        inst, last = run_job(st["jobLog"], "200000 1024", 90)
        if inst is None:
            return last
        return "%s %s %s" % (last["status"], last["reason"], last["result"][:80])

    @attack("W3", "result (worker)", "a task returns a 10 MiB result", "protocol.MaxResultBytes")
    def _():
        inst, last = run_job(st["jobResult"], str(10 << 20), 30)
        if inst is None:
            return last
        return "%s %s result %d bytes" % (last["status"], last["reason"], len(last["result"]))

    @attack("W4", "runJob params", "runJob with 2 MiB params; then 20 x 900 KB", "param size bound")
    def _():
        s1, o1, _ = gql('mutation($id: ID!, $p: String) { runJob(id: $id, params: $p) { id } }',
                        {"id": st["jobResult"], "p": "1" * (2 << 20)}, ed)
        ok, last = 0, ""
        for _ in range(20):
            s2, o2, _ = gql('mutation($id: ID!, $p: String) { runJob(id: $id, params: $p) { id } }',
                            {"id": st["jobResult"], "p": "1" * 900000}, ed)
            ok += isinstance(o2, dict) and not o2.get("errors")
            last = answer(s2, o2)
        return "2 MiB: %s | 900 KB x20: %d accepted (%s)" % (answer(s1, o1), ok, last)

    # ---- GraphQL
    def q(id, what, query, budget, variables=None, raw=None, ctype="application/json"):
        @attack(id, "GraphQL", what, budget)
        def _():
            if raw is not None:
                status, out, dt = post(raw() if callable(raw) else raw, ed, ctype)
            else:
                status, out, dt = gql(query() if callable(query) else query, variables, ed)
            return "%s (%.2f s)" % (answer(status, out), dt)

    q("G1", "deep query: 200 levels of workflow{app{…}} nesting",
      lambda: "{ jobs(app: \"%s\") { edges { node { " % APP_A + "app { members { username } }" * 1 +
      "".join(" lastRun { job { " for _ in range(100)) + "id" + " } }" * 100 + " } } } }", "12 levels")
    q("G2", "alias bomb: 200 x appStats(hours: 168) { lag latestFailures }",
      lambda: "{ " + " ".join('a%d: appStats(app: "%s", hours: 168) { lag { samples } latestFailures { id } }' % (i, APP_A)
                             for i in range(200)) + " }", "complexity 50,000")
    q("G3", "fragment cycle", "query { ...A } fragment A on Query { me { id } ...B } fragment B on Query { ...A }",
      "validation")
    q("G4", "fragment bomb: 40 fragments each spreading the next twice (2^40 fields)",
      lambda: "query { ...F0 } " + " ".join("fragment F%d on Query { me { id } ...F%d ...F%d }" % (i, i + 1, i + 1)
                                            for i in range(39)) + " fragment F39 on Query { me { id } }",
      "complexity 50,000")
    q("G5", "overlapping fields: 20,000 `me { id }` with distinct aliases inside one fragment spread 2x",
      lambda: "query { ...F ...F } fragment F on Query { " + " ".join("a%d: me { id }" % i for i in range(20000)) + " }",
      "complexity / validation")
    q("G5b", "field merging: 3,000 `me` with conflicting arguments via directives",
      lambda: "query { " + " ".join("x: jobs(app: \"%s\", first: %d) { totalCount }" % (APP_A, i) for i in range(3000)) + " }",
      "validation")
    @attack("G5c", "GraphQL", "the same 3,000 conflicting fields with no login", "refused before validation")
    def _():
        body = json.dumps({"query": "query { " + " ".join("x: jobs(app: \"%s\", first: %d) { totalCount }" % (APP_A, i)
                                                           for i in range(3000)) + " }"}).encode()
        status, out, dt = post(body, None)
        return "%s (%.2f s)" % (answer(status, out), dt)

    q("G6", "huge page: jobs/instances/workflowInstances/auditLog first: 1000000",
      lambda: '{ jobs(app: "%s", first: 1000000) { totalCount } instances(app: "%s", first: 1000000) { totalCount } '
              'workflowInstances(app: "%s", first: 1000000) { totalCount } auditLog(app: "%s", first: 1000000) { totalCount } }'
              % (APP_A, APP_A, APP_A, APP_A), "page caps")
    q("G7", "giant body: 8 MiB query", None, "1 MiB body",
      raw=lambda: json.dumps({"query": "{ me { id } }", "variables": {"x": "a" * (8 << 20)}}).encode())
    q("G8", "batch: a JSON array of 1,000 operations", None, "no batches",
      raw=lambda: json.dumps([{"query": "{ me { id } }"}] * 1000).encode())
    q("G9", "100,000 @include directives on one field",
      lambda: "{ me " + "@include(if: true) " * 50000 + "{ id } }", "1 MiB body")
    q("G10", "30,000 variables declared",
      lambda: "query(" + ", ".join("$v%d: Int" % i for i in range(30000)) + ") { me { id } }", "1 MiB body")
    q("G11", "search with LIKE wildcards and backtracking `%a%a%a…` (x2000)",
      lambda: '{ jobs(app: "%s", search: "%s") { totalCount } workflows(app: "%s", search: "%s") { totalCount } }'
              % (APP_A, "%a" * 2000 + "b", APP_A, "%_" * 2000 + "b"), "escaped or bounded")
    q("G12", "logs(first: 1000000) of the 200k-line instance",
      lambda: '{ instances(app: "%s", jobId: "%s", first: 1) { edges { node { logs(first: 1000000) { lines { seq } hasMore } } } } }'
              % (APP_A, st["jobLog"]), "page cap")
    q("G13", "previewSchedule of a CRON that never fires (Feb 30), count 100",
      '{ previewSchedule(type: CRON, expression: "0 0 0 30 2 ?", count: 100) }', "bounded search")
    q("G14", "previewSchedule every second, count 1000000",
      '{ previewSchedule(type: CRON, expression: "* * * * * ?", count: 1000000) }', "count cap")
    q("G15", "instances(from: year 0)",
      '{ instances(app: "%s", from: "0000-01-01T00:00:00Z") { totalCount } }' % APP_A, "BAD_INPUT")
    q("G16", "runReport over 10 years", '{ runReport(app: "%s", from: "2016-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { days { date } } }' % APP_A,
      "92 days")
    q("G17", "appStats(hours: 1000000)", '{ appStats(app: "%s", hours: 1000000) { lag { samples } } }' % APP_A, "bounded window")
    q("G18", "introspection with 30 nested ofType",
      lambda: "{ __schema { types { " + "ofType { " * 30 + "name" + " }" * 30 + " } } }", "introspection limits")
    q("G19", "job.upcoming(count: 1000000) across 50 jobs",
      '{ jobs(app: "%s", first: 50) { edges { node { upcoming(count: 1000000) } } } }' % APP_A, "count cap")

    @attack("G20", "GraphQL", "100 requests in parallel of the biggest accepted appStats query (~49,000 complexity)",
            "complexity per request")
    def _():
        import threading
        # appStats costs 250 and its lag 2,000 (graph/limits.go): 22 aliases
        # are the most one request may hold (9 before the roll-ups).
        body = "{ " + " ".join('a%d: appStats(app: "%s", hours: 168) { lag { samples } }' % (i, APP_A) for i in range(22)) + " }"
        res = []

        def one():
            s, o, dt = gql(body, None, ed)
            res.append((answer(s, o)[:40], dt))
        ts = [threading.Thread(target=one) for _ in range(100)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        kinds = {}
        for r in res:
            k = r[0].split(":")[0]
            kinds[k] = kinds.get(k, 0) + 1
        return "answers %s; slowest %.1f s" % (", ".join("%s x%d" % kv for kv in sorted(kinds.items())), max(r[1] for r in res))

    @attack("G21", "GraphQL", "200 requests in parallel, each 3 pages of 500 instances with their attempts and 10 log lines (~43,500 complexity)",
            "the API's own pool of connections")
    def _():
        import threading
        body = "{ " + " ".join('p%d: instances(app: "%s", first: 500, status: [%s]) { totalCount edges { node { id status reason attempts { attempt } logs(first: 10) { lines { seq } } } } }'
                              % (i, APP_A, s) for i, s in enumerate(["SUCCEEDED", "FAILED", "STOPPED"])) + " }"
        res = []

        def one():
            s, o, dt = gql(body, None, ed)
            res.append((answer(s, o)[:60], dt))
        ts = [threading.Thread(target=one) for _ in range(200)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        kinds = {}
        for r in res:
            k = r[0].split(":")[0]
            kinds[k] = kinds.get(k, 0) + 1
        return "answers %s; slowest %.1f s" % (", ".join("%s x%d" % kv for kv in sorted(kinds.items())), max(r[1] for r in res))

    @attack("S1", "subscriptions", "300 websockets x 20 subscriptions (instanceUpdated, workersUpdated)",
            "per-connection bounds")
    def _():
        socks, err = [], ""
        for i in range(300):
            try:
                s = ws_open(ed)
                for j in range(20):
                    ws_send(s, {"id": str(j), "type": "subscribe", "payload": {
                        "query": 'subscription { instanceUpdated(app: "%s") { id } }' % APP_A if j % 2 else
                                 'subscription { workersUpdated(app: "%s") { id } }' % APP_A}})
                socks.append(s)
            except OSError as e:
                err = str(e)
                break
        time.sleep(5)
        mem = proc(int(os.environ["PROBE_SERVER_PID"]))["rss"]
        # What the server answered each socket: acknowledged, or closed
        # (RATE_LIMITED past the per-user bound); subscriptions refused.
        acked, closed, limited, reasons = 0, 0, 0, set()
        for s in socks:
            got = ws_drain(s)
            if b"connection_ack" in got:
                acked += 1
            i = got.find(b"\x88")
            if i >= 0 and i + 4 <= len(got):
                closed += 1
                reasons.add(got[i + 4:i + 2 + (got[i + 1] & 0x7f)].decode("utf-8", "replace")[:60])
            limited += got.count(b"\"code\":\"RATE_LIMITED\"")
        for s in socks:
            s.close()
        return "%d sockets opened (%s): %d acknowledged, %d closed %s; %d subscriptions RATE_LIMITED; server RSS with them %.0f MiB" % (
            len(socks), err or "no handshake refused", acked, closed, sorted(reasons), limited, mem)

    @attack("S2", "subscriptions", "one websocket, 20,000 subscriptions", "per-connection bounds")
    def _():
        s = ws_open(ed)
        try:
            for j in range(20000):
                ws_send(s, {"id": str(j), "type": "subscribe", "payload": {
                    "query": 'subscription { workersUpdated(app: "%s") { id } }' % APP_A}})
            time.sleep(5)
            s.settimeout(2)
            got = b""
            try:
                got = s.recv(300)
            except OSError:
                pass
            return "sent 20,000; first bytes back: %r" % got[:120]
        except OSError as e:
            return "closed by server: %s" % e
        finally:
            s.close()

    @attack("C1", "jobs", "CRON job that never fires (Feb 30) and one every second, created via the API", "scheduler bounded")
    def _():
        out = []
        for name, expr in (("never", "0 0 0 30 2 ?"), ("everysec", "* * * * * ?")):
            s, o, dt = gql('mutation($in: JobInput!) { createJob(input: $in) { id nextTriggerTime } }',
                           {"in": {"app": APP_A, "name": "c1-" + name, "scheduleType": "CRON", "scheduleExpression": expr,
                                   "processorType": "SHELL", "processor": "true",
                                   "workerFilter": {"tags": ["probe-agent"]}}}, ed)
            out.append("%s: %s %.2fs" % (name, answer(s, o), dt))
        time.sleep(10)
        return " | ".join(out)

    return A


def attack():
    st = json.load(open(STATE))
    pid = int(os.environ["PROBE_SERVER_PID"])
    only = set(filter(None, os.environ.get("PROBE_ONLY", "").split(",")))
    results = []
    for id, surface, what, budget, fn in attacks(st):
        if only and id not in only:
            continue
        time.sleep(3)  # let tenant B settle
        try:  # the peak RSS (VmHWM) from now on is this attack's
            with open("/proc/%d/clear_refs" % pid, "w") as f:
                f.write("5")
        except OSError:
            pass
        p0, r0, t0 = proc(pid), rows(), time.time()
        try:
            ans = fn()
        except Exception as e:
            ans = "probe error: %s: %s" % (type(e).__name__, e)
        t1 = time.time()
        time.sleep(3)  # fires late because of the attack land after it
        p1, r1 = proc(pid), rows()
        late, missed, lerr = lateness(st, t0, t1 + 2)
        written = {k: r1[k] - r0.get(k, 0) for k in r1 if r1[k] != r0.get(k, 0)}
        res = {"id": id, "surface": surface, "attack": what, "budget": budget, "answer": ans,
               "cpu_s": round(p1["cpu"] - p0["cpu"], 2), "rss_mib": round(p1["rss"], 1),
               "rss_delta_mib": round(p1["rss"] - p0["rss"], 1), "peak_mib": round(p1["hwm"], 1),
               "rows": written, "wall_s": round(t1 - t0, 1),
               "b_late_s": None if late is None else round(late[0], 2),
               "b_start_s": None if late is None else round(late[1], 2),
               "b_wf_s": None if late is None or late[2] is None else round(late[2], 2), "b_missed": missed,
               "alive": p1["alive"], "load": os.getloadavg()[0]}
        res["b_note"] = lerr
        results.append(res)
        print(json.dumps(res), flush=True)
        if not p1["alive"]:
            print("probe: the server died", flush=True)
            break
    with open(os.path.join(DIR, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    table(results)


def table(results):
    print("| # | surface | attack | answer | CPU s | RSS MiB after (peak) | rows written | B late s: fire, start, workflow (missed) | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        rows_ = ", ".join("%s +%d" % (k, v) for k, v in r["rows"].items()
                          if k not in ("instances", "tasks") or v > 20) or "—"
        ans = r["answer"].replace("|", "\\|").replace("\n", " ")
        if len(ans) > 200:
            ans = ans[:200] + "…"
        print("| %s | %s | %s | %s | %.2f | %.0f (%.0f) | %s | %s, %s, %s (%s) | %.1f |" % (
            r["id"], r["surface"], r["attack"].replace("|", "\\|"), ans,
            r["cpu_s"], r["rss_mib"], r["peak_mib"], rows_,
            r["b_late_s"], r.get("b_start_s"), r.get("b_wf_s"), r["b_missed"], r["load"]))


if __name__ == "__main__":
    os.makedirs(DIR, exist_ok=True)
    {"setup": setup, "attack": attack,
     "table": lambda: table(json.load(open(os.path.join(DIR, "results.json"))))}[sys.argv[1]]()
