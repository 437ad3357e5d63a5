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
	grep -E -- '--- FAIL' "$log"
	echo "---- what the failing tests said (their t.Error and t.Log lines) ----"
	# First the tests' own messages, which the processes' output dumped
	# after them could push out of the tail below.
	awk '
		FNR == NR { if (match($0, /--- FAIL: [^ ]+/)) fail[substr($0, RSTART + 10, RLENGTH - 10)] = 1; next }
		/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
		/^ *(--- |ok |FAIL|PASS$)/ { cur = ""; next }
		(cur in fail) && /^ +[A-Za-z0-9_]+_test\.go:[0-9]+: / { print cur ": " $0 }
	' "$log" "$log" | head -n 100
	echo "---- what the failing tests printed ----"
	# go test -v interleaves parallel tests' output under "=== RUN/CONT/NAME"
	# headers; print each failing test's own lines, which hold its t.Error
	# messages, rather than the end-of-run summary around "--- FAIL".
	awk '
		FNR == NR { if (match($0, /--- FAIL: [^ ]+/)) fail[substr($0, RSTART + 10, RLENGTH - 10)] = 1; next }
		/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
		/^ *(--- |ok |FAIL|PASS$)/ { cur = ""; next }
		cur in fail { print cur ": " $0 }
	' "$log" "$log" | tail -n 300
fi
exit "$status"
