#!/usr/bin/env bash
# Benchmark of `rehearse run` on several targets at once (issue 31 §1), against one target and
# against the same targets one after another, all in the same run.
#
# The README demo (scenarios/demo.toml: a windowed count written by Spark 3.5.3, generated once
# and cached) is rehearsed:
#   1. on one target (4.0.1)                                  → the baseline wall
#   2. on N targets with --jobs 1 (one after another)         → what `run` did before
#   3. on N targets with the default --jobs (at once)          → the goal: ≤ 1.4× the baseline
# for N = 2 (4.0.1, 3.3.4) and N = 3 (4.0.1, 3.3.4, 4.2.0). Every run must pass (its verdicts
# are the scenario's expectations); a failing run stops the benchmark.
#
# Prints one row per run: targets, jobs, wall seconds, ratio to the one-target wall.
# Needs Docker and the images (rehearse images build --spark 3.5.3 --spark 4.0.1 --spark 3.3.4
# --spark 4.2.0 --kafka 3.9.1). Not a test: it takes ~10 minutes; run it alone.
#
# Usage: bench/targets.sh            (env REHEARSE: the binary, default target/debug/rehearse)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${REHEARSE:-$root/target/debug/rehearse}
[[ -x "$bin" ]] || { echo "bench/targets.sh: no binary at $bin (cargo build)" >&2; exit 2; }
dir=$(mktemp -d -t rehearse-bench-targets.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# The demo with every target the benchmark uses; --target narrows it per run.
sed -e 's/^targets = .*/targets = ["4.0.1", "3.3.4", "4.2.0"]/' \
    -e 's#"jobs/#"'"$root"'/scenarios/jobs/#' "$root/scenarios/demo.toml" > "$dir/demo.toml"
grep -q '^\[expect\]' "$dir/demo.toml" && ! grep -q '"4.2.0" =' "$dir/demo.toml" \
    && sed -i 's/^\[expect\]$/[expect]\n"4.2.0" = "resumed"/' "$dir/demo.toml"
# Generate (or find cached) the source checkpoint first, so no measured run pays for it.
"$bin" run "$dir/demo.toml" --target 4.0.1 >/dev/null 2>&1 || true
one=""
printf '%-22s %5s %9s %7s\n' targets jobs wall_s ratio
measure() { # jobs targets...
    local jobs=$1; shift
    local args=() t
    for t in "$@"; do args+=(--target "$t"); done
    local start end wall
    start=$(date +%s.%N)
    if ! "$bin" run "$dir/demo.toml" "${args[@]}" ${jobs:+--jobs "$jobs"} >"$dir/out.txt" 2>&1; then
        echo "bench/targets.sh: the run on $* (jobs ${jobs:-default}) failed:" >&2
        tail -20 "$dir/out.txt" >&2
        exit 1
    fi
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    [[ -n "$one" ]] || one=$wall
    printf '%-22s %5s %9.1f %6.2fx\n' "$(IFS=,; echo "$*")" "${jobs:-auto}" "$wall" "$(echo "$wall / $one" | bc -l)"
}
measure "" 4.0.1
measure 1 4.0.1 3.3.4
measure "" 4.0.1 3.3.4
measure 1 4.0.1 3.3.4 4.2.0
measure "" 4.0.1 3.3.4 4.2.0
