#!/usr/bin/env bash
# Runs `go test -v` with the given arguments, keeps the whole output in a
# log file, and prints a summary a reader can check at a glance: every
# top-level test and database subtest that passed or failed, and what the
# browser tests ran in. On failure it prints the log's failures in full.
#   scripts/gotest-summary.sh LOG go-test-args...
set -uo pipefail
log="$1"
shift
mkdir -p "$(dirname "$log")"
go test -v "$@" > "$log" 2>&1
status=$?
grep -E -- '^(--- PASS: Test[A-Za-z0-9_]+ |--- FAIL|ok  |FAIL|PASS$)|^    --- (PASS|FAIL): [A-Za-z0-9_]+/(sqlite|postgres) ' "$log" | sed 's/^    /  /'
grep -hoE 'ran in Chromium [0-9.]+' "$log" | sort | uniq -c | sed 's/^ */browser tests: /'
if [ "$status" -ne 0 ]; then
	echo "---- failures (full log: $log) ----"
	grep -nE -B2 -A40 -- '--- FAIL' "$log" | head -400
fi
exit "$status"
