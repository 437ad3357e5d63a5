#!/usr/bin/env bash
# Runs every native Go fuzz target of the repository, one after the other
# (the fuzzer takes every core it is given), each for FUZZTIME (default
# 1m), with FUZZPARALLEL workers (default 1). A target that fails leaves
# its input under its package's testdata/fuzz/<Target>/, where `go test`
# replays it from then on. Prints one line per target with its exec count.
#   scripts/fuzz.sh                 every target
#   scripts/fuzz.sh FuzzSchedule    only the targets named
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-1m}
FUZZPARALLEL=${FUZZPARALLEL:-1}
GO=${GO:-go}
log_dir=test-output/fuzz
mkdir -p "$log_dir"

# package<TAB>target for every func FuzzXxx(f *testing.F) outside node_modules.
mapfile -t targets < <(grep -rEo --include='*_test.go' --exclude-dir=node_modules '^func (Fuzz[A-Za-z0-9_]+)\(f \*testing\.F\)' . |
	sed -E 's#^\./(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+).*#\1\t\2#' | sort -u)

failed=0
for entry in "${targets[@]}"; do
	pkg=${entry%%$'\t'*}
	name=${entry##*$'\t'}
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	log="$log_dir/$name.log"
	$GO test -timeout 0 -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZPARALLEL" "./$pkg" >"$log" 2>&1
	rc=$?
	execs=$(grep -Eo 'execs: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+')
	if [ $rc -eq 0 ]; then
		echo "ok   $pkg $name: ${execs:-0} execs in $FUZZTIME"
	else
		failed=1
		echo "FAIL $pkg $name after ${execs:-0} execs (log: $log):"
		grep -E -- '--- FAIL|_test\.go:[0-9]+:|Failing input|panic:' "$log" | head -20
	fi
done
exit $failed
