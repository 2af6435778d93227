#!/usr/bin/env bash
# Runs each native fuzz target for the given number of seconds (default 30),
# one after another, and stops at the first failure. A crasher is written by
# go test under <package>/testdata/fuzz/<target>/; commit it as a regression
# seed once the bug is fixed.
#
#   bash scripts/fuzz.sh        # 30 s per target, as CI runs it
#   bash scripts/fuzz.sh 600    # 10 min per target
#
# FUZZ_PARALLEL sets the number of fuzzing workers (default: go test's, the
# number of CPUs).
set -euo pipefail

secs="${1:-30}"
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -eq 0 ]; then
	echo "usage: $0 [seconds per target]" >&2
	exit 2
fi
cd "$(dirname "$0")/.."

parallel=()
if [ -n "${FUZZ_PARALLEL:-}" ]; then
	parallel=(-parallel "$FUZZ_PARALLEL")
fi

targets=(
	"FuzzDecode ./internal/sse"
	"FuzzDecodeEvent ./a2a"
	"FuzzDecodeEventPerWire ./a2a"
	"FuzzCanonicalJSON ./a2a"
	"FuzzRetryHint ./a2a"
	"FuzzChainOf ./a2a"
	"FuzzLedger ./dedupe"
	"FuzzRevisions ./dedupe"
	"FuzzParseCheckpoint ./stream"
)
for t in "${targets[@]}"; do
	read -r name pkg <<<"$t"
	echo "=== $name ($pkg, ${secs}s)"
	# -timeout 0: go test's default 10-minute timeout would kill a long run.
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" -timeout 0 "${parallel[@]}" "$pkg"
done
