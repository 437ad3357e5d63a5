#!/usr/bin/env bash
# `make run`: starts a jobwheel server on the embedded SQLite database
# (./jobwheel.db) and, unless JOBWHEEL_DEMO=0, the demo: an app "demo" with
# example jobs and one standalone agent running them. Ctrl-C (or SIGINT,
# SIGTERM or SIGHUP to this script) stops the agent, then the server, and
# exits 0 once both have stopped cleanly.
set -euo pipefail

# Job control: every process started below gets a process group of its
# own, so a Ctrl-C on the terminal reaches this script alone, which stops
# the agent while the server is still up to take its last reports, then the
# server. (Signalled together, the agent would retry the vanished server for
# its whole shutdown timeout.)
set -m

# make, which runs this script, shares its process group and would get the
# Ctrl-C too, and report "Error 130" however cleanly everything stopped. So
# on a terminal, run the rest of this script again as a foreground job: job
# control gives it its own process group and hands it the terminal, and the
# Ctrl-C goes to it alone.
in_foreground() {
	local pgid tpgid
	pgid=$(ps -o pgid= -p $$ 2>/dev/null | tr -d ' ') &&
		tpgid=$(ps -o tpgid= -p $$ 2>/dev/null | tr -d ' ') &&
		[ -n "$pgid" ] && [ "$pgid" = "$tpgid" ]
}
if [ -z "${_JOBWHEEL_RUN_FOREGROUND:-}" ] && [ -t 2 ] && in_foreground; then
	status=0
	_JOBWHEEL_RUN_FOREGROUND=1 "$BASH" "${BASH_SOURCE[0]}" "$@" || status=$?
	exit "$status"
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export JOBWHEEL_DEMO="${JOBWHEEL_DEMO:-1}"
# The server listens on loopback unless JOBWHEEL_HTTP_ADDR says otherwise
# (:7700 serves every interface); the agent and the readiness check dial
# the address it listens on, or loopback when that is every interface.
addr="${JOBWHEEL_HTTP_ADDR:-127.0.0.1:7700}"
port="${addr##*:}"
host="${addr%:*}"
case "$host" in
"" | 0.0.0.0 | "[::]" | "::") host=127.0.0.1 ;;
esac
# /metrics names every app and needs no login: make run serves it (with
# /healthz and /readyz) on loopback, on the next port, not on the console's.
# JOBWHEEL_METRICS_ADDR= (empty) puts it back on the console's port.
export JOBWHEEL_METRICS_ADDR="${JOBWHEEL_METRICS_ADDR-:$((port + 1))}"
server=""
agent=""
status=0

# stop ends the agent, then the server, each with SIGTERM (both stop
# gracefully on it, in bounded time), and keeps the server's exit status. A
# second Ctrl-C meanwhile is ignored: ending this script then would leave
# them running.
stop() {
	trap '' INT TERM HUP
	trap - EXIT
	if [ -n "$agent" ]; then
		kill -TERM "$agent" 2>/dev/null || true
		wait "$agent" 2>/dev/null || true
		agent=""
	fi
	if [ -n "$server" ]; then
		kill -TERM "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || status=$?
		server=""
	fi
}
trap 'stop; exit "$status"' INT TERM HUP EXIT

./bin/jobwheel-server "$@" &
server=$!

for _ in $(seq 1 300); do
	if curl -fs "http://${host}:${port}/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 "$server" 2>/dev/null; then
		wait "$server" || status=$?
		server=""
		exit "$status"
	fi
	sleep 0.1
done

case "$(printf %s "$JOBWHEEL_DEMO" | tr '[:upper:]' '[:lower:]')" in
1 | t | true | yes | on)
	if [ -x ./bin/jobwheel-agent ] && [ -f jobwheel-demo.secret ]; then
		# The agent's own log is kept to warnings so it does not drown the
		# server's; what its jobs write is shipped to the console whatever
		# its level.
		JOBWHEEL_SERVERS="http://${host}:${port}" JOBWHEEL_APP=demo \
			JOBWHEEL_APP_SECRET="$(cat jobwheel-demo.secret)" JOBWHEEL_WORKER_TAGS=demo JOBWHEEL_LOG_LEVEL="${JOBWHEEL_AGENT_LOG_LEVEL:-warn}" \
			./bin/jobwheel-agent &
		agent=$!
		echo "demo: an agent runs the jobs of app \"demo\"; open the console to watch them (JOBWHEEL_DEMO=0 make run turns the demo off)"
	fi
	;;
esac

# Until the server ends by itself or a signal runs the trap.
wait "$server" || status=$?
server=""
stop
exit "$status"
