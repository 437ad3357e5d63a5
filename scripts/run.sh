#!/usr/bin/env bash
# `make run`: starts a jobwheel server on the embedded SQLite database
# (./jobwheel.db) and, unless JOBWHEEL_DEMO=0, the demo: an app "demo" with
# example jobs and one standalone agent running them. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

export JOBWHEEL_DEMO="${JOBWHEEL_DEMO:-1}"
addr="${JOBWHEEL_HTTP_ADDR:-:7700}"
port="${addr##*:}"
agent=""

./bin/jobwheel-server "$@" &
server=$!
stop() {
	trap - INT TERM EXIT
	[ -n "$agent" ] && kill -TERM "$agent" 2>/dev/null || true
	kill -TERM "$server" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap stop INT TERM EXIT

for _ in $(seq 1 300); do
	if curl -fs "http://localhost:${port}/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 "$server" 2>/dev/null; then wait "$server"; exit 1; fi
	sleep 0.1
done

if [ "$JOBWHEEL_DEMO" = 1 ] || [ "$JOBWHEEL_DEMO" = true ]; then
	if [ -x ./bin/jobwheel-agent ] && [ -f jobwheel-demo.secret ]; then
		JOBWHEEL_SERVERS="http://localhost:${port}" JOBWHEEL_APP=demo \
			JOBWHEEL_APP_SECRET="$(cat jobwheel-demo.secret)" JOBWHEEL_WORKER_TAGS=demo JOBWHEEL_LOG_LEVEL="${JOBWHEEL_AGENT_LOG_LEVEL:-warn}" \
			./bin/jobwheel-agent &
		agent=$!
		echo "demo: an agent runs the jobs of app \"demo\"; open the console to watch them (JOBWHEEL_DEMO=0 make run turns the demo off)"
	fi
fi
wait "$server"
