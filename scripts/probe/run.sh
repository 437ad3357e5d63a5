#!/usr/bin/env bash
# The attacker probe (docs/security.md, "Attacker probe"): starts a
# jobwheel server on a fresh PostgreSQL database, an agent for each of two
# apps and a hostile Go worker for app A, runs probe.py's attacks as an
# EDITOR of app A while app B's job fires every second, prints the results
# table, then stops everything and drops the database.
#
#   make build && scripts/probe/run.sh            # every attack
#   PROBE_ONLY=E1,G2 scripts/probe/run.sh         # some
#
# Environment: PROBE_PG (default postgres://postgres@127.0.0.1:5432),
# PROBE_PORT (7791), PROBE_KEEP=1 keeps the database and the state
# directory ($PROBE_DIR, default /tmp/jobwheel-probe) for a look after.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

pg="${PROBE_PG:-postgres://postgres@127.0.0.1:5432}"
port="${PROBE_PORT:-7791}"
dbname="probe_$$"
export PROBE_DIR="${PROBE_DIR:-/tmp/jobwheel-probe}"
export PROBE_URL="http://127.0.0.1:${port}"
export PROBE_DB="${pg}/${dbname}?sslmode=disable"
export PROBE_ADMIN_PASSWORD="probe-admin-$$"
mkdir -p "$PROBE_DIR"

go build -o "$PROBE_DIR/probe-worker" ./scripts/probe/worker
psql "${pg}/postgres" -qc "create database ${dbname}"

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	if [ -z "${PROBE_KEEP:-}" ]; then
		psql "${pg}/postgres" -qc "drop database if exists ${dbname} with (force)" || true
	fi
}
trap cleanup EXIT

JOBWHEEL_DATABASE_URL="$PROBE_DB" JOBWHEEL_HTTP_ADDR="127.0.0.1:${port}" JOBWHEEL_ADMIN_PASSWORD="$PROBE_ADMIN_PASSWORD" \
	JOBWHEEL_LOG_LEVEL=warn nice -n 10 "${PROBE_BIN:-./bin}/jobwheel-server" >"$PROBE_DIR/server.log" 2>&1 &
server=$!
pids+=("$server")
export PROBE_SERVER_PID="$server"
for _ in $(seq 1 600); do
	curl -fs "${PROBE_URL}/readyz" >/dev/null 2>&1 && break
	kill -0 "$server" || { cat "$PROBE_DIR/server.log"; exit 1; }
	sleep 0.2
done

setup=$(python3 scripts/probe/probe.py setup) || { echo "$setup"; exit 1; }
eval "$setup"
agent() { # app secret tags log
	JOBWHEEL_SERVERS="$PROBE_URL" JOBWHEEL_APP="$1" JOBWHEEL_APP_SECRET="$2" JOBWHEEL_WORKER_TAGS="$3" \
		JOBWHEEL_LOG_LEVEL=warn nice -n 10 "${PROBE_BIN:-./bin}/jobwheel-agent" >"$PROBE_DIR/$4" 2>&1 &
	pids+=($!)
}
agent probe-b "$SECRET_B" b agent-b.log
agent probe-a "$SECRET_A" probe-agent agent-a.log
JOBWHEEL_SERVERS="$PROBE_URL" JOBWHEEL_APP=probe-a JOBWHEEL_APP_SECRET="$SECRET_A" \
	nice -n 10 "$PROBE_DIR/probe-worker" >"$PROBE_DIR/worker-a.log" 2>&1 &
pids+=($!)
# PROBE_SEED_WEEK=N gives app A N finished instances spread over the last
# week (as a busy app has), for the appStats attacks (G2, G20) to read; the
# server's roll-up pass sums their hours within its first minute.
if [ -n "${PROBE_SEED_WEEK:-}" ]; then
	psql "$PROBE_DB" -qc "insert into instances (app_id, job_id, status, trigger_type, trigger_at, expected_trigger_at, actual_trigger_at, started_at, finished_at, created_at, updated_at)
		select j.app_id, j.id, (array['SUCCEEDED','SUCCEEDED','SUCCEEDED','FAILED'])[1 + g % 4], 'SCHEDULE', t, t, t + (g % 97) * interval '1 ms', t + (g % 389) * interval '1 ms', t + interval '2 s', t, t + interval '2 s'
		from (select id, app_id from jobs where app_id = (select id from apps where name = 'probe-a') order by id limit 1) j,
		     generate_series(1, ${PROBE_SEED_WEEK}) g, lateral (select now() - g * (interval '168 hours' / ${PROBE_SEED_WEEK}) - interval '5 s' as t) x"
	sleep 65 # the roll-up pass: 10 s after start, then every minute
fi
sleep 8 # tenant B fires a few times before the first attack

python3 scripts/probe/probe.py attack | tee "$PROBE_DIR/results.txt"
echo "server log: $PROBE_DIR/server.log (errors: $(grep -c 'level=ERROR' "$PROBE_DIR/server.log" || true))"
