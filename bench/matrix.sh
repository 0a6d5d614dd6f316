#!/usr/bin/env bash
# Benchmark of `rehearse matrix` parallelism (issue 6): wall time of a suite (default: the CI
# slice, 2 shapes x 2 versions x 2 targets = 8 trials + 4 generations) with --jobs 1 and with the
# default --jobs, in the same run, and their ratio. By default each run starts from an empty
# checkpoint cache (both write their source checkpoints); WARM=1 writes them once in an untimed
# warm-up run and times the trials alone. Needs Docker and the images (rehearse images build).
#
#   bench/matrix.sh [SUITE]          REHEARSE=path/to/rehearse to pick the binary, WARM=1
set -euo pipefail
cd "$(dirname "$0")/.."
suite=${1:-scenarios/suites/ci-slice.toml}
bin=${REHEARSE:-target/release/rehearse}
[ -x "$bin" ] || cargo build --release --quiet
out=$(mktemp -d)
run() { # $1 = label, rest = extra args; prints seconds
	local label=$1
	shift
	local cache start end code=0
	cache=${warm_cache:-$(mktemp -d)}
	start=$(date +%s.%N)
	REHEARSE_CACHE_DIR=$cache "$bin" matrix "$suite" "$@" --json >"$out/$label.json" 2>"$out/$label.err" || code=$?
	end=$(date +%s.%N)
	[ -n "${warm_cache:-}" ] || rm -rf "$cache"
	if [ "$code" -ne 0 ]; then
		echo "rehearse matrix ($label) exited $code; see $out/$label.err" >&2
		exit 1
	fi
	python3 -c "print($end - $start)"
}
warm_cache=
if [ "${WARM:-0}" = 1 ]; then
	warm_cache=$(mktemp -d)
	trap 'rm -rf "$warm_cache"' EXIT
	run warm-up >/dev/null
fi
t1=$(run jobs-1 --jobs 1)
td=$(run jobs-default)
jobs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"])' "$out/jobs-default.json")
printf 'suite %s (%s), %s cores, %s GiB\n' "$suite" "$([ -n "$warm_cache" ] && echo 'checkpoints generated beforehand: trials only' || echo 'each run generates its checkpoints')" "$(nproc)" "$(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo)"
printf '  --jobs 1         %8.1f s\n' "$t1"
printf '  default (--jobs %s) %6.1f s\n' "$jobs" "$td"
printf '  ratio jobs-1 / default: %.2f (reports in %s)\n' "$(python3 -c "print($t1 / $td)")" "$out"
