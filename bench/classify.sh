#!/usr/bin/env bash
# Benchmark of `rehearse classify` on a large driver log, against `grep -F` in the same run.
#
# Builds a log of SIZE_MB (default 1024) from real driver-log lines of the shared corpus
# (../shared/cases/restarts): the stderr of a resumed 3.5.3→4.0.1 restart (INFO/WARN lines,
# progress reports, state-store lines) repeated as filler with its decisive lines removed
# (no "Resuming at batch", no failure), then a whole failed restart (q-3.5.3-key-added:
# executor errors, "terminated with error", the PySpark traceback) at the end. The verdict
# must be state-store-error, and it can only come from the last kilobytes.
#
# Prints: size, classify time and throughput, `grep -F` time for one fixed string over the
# same file, and the ratio. Target: >= 300 MB/s on a release build.
#
# Usage: bench/classify.sh [SIZE_MB]      (env BENCH_DIR: where the log is written, kept)
set -euo pipefail

size_mb=${1:-1024}
root=$(cd "$(dirname "$0")/.." && pwd)
cases="$root/../shared/cases/restarts"
if [[ ! -d "$cases" ]]; then
  echo "bench/classify.sh: the shared corpus is absent at $cases; it supplies the real log lines" >&2
  exit 2
fi

cargo build --release --quiet --bin rehearse --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/rehearse"

dir=${BENCH_DIR:-$(mktemp -d -t rehearse-bench.XXXXXX)}
mkdir -p "$dir"
log="$dir/driver-${size_mb}MB.log"

python3 - "$cases" "$log" "$size_mb" <<'EOF'
import os, sys
cases, out, size_mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
target = size_mb * 1024 * 1024

def lines(case):
    with open(os.path.join(cases, case, "driver.log"), encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")

# Filler: the log4j part of a resumed restart, minus the lines that decide anything.
filler = []
for l in lines("x1-agg-3.5.3-to-4.0.1"):
    if l.startswith("# ---- driver stdout"):
        break
    if l.startswith("#") or "Resuming at batch" in l or "Starting new streaming query" in l:
        continue
    filler.append(l)
chunk = ("\n".join(filler) + "\n").encode()
decisive = ("\n".join(lines("q-3.5.3-key-added")) + "\n").encode()
reps = max(1, (target - len(decisive)) // len(chunk))
block = chunk * max(1, (1 << 20) // len(chunk))
with open(out, "wb") as f:
    written = 0
    while written + len(block) <= reps * len(chunk):
        f.write(block)
        written += len(block)
    while written + len(chunk) <= reps * len(chunk):
        f.write(chunk)
        written += len(chunk)
    f.write(decisive)
EOF

bytes=$(stat -c %s "$log")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
cat "$log" > /dev/null # warm the page cache for both contenders

now() { date +%s.%N; }
t0=$(now)
set +e
verdict=$("$bin" classify "$log" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["verdict"], d["rule"])')
code=$?
set -e
t1=$(now)
grep_count=$(grep -F -c "terminated with error" "$log" || true)
t2=$(now)

classify_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
grep_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b - a }')
echo "log:       $log ($mb MiB, decisive lines in the last $(wc -l < "$cases/q-3.5.3-key-added/driver.log") lines)"
echo "verdict:   $verdict"
echo "classify:  ${classify_s} s  $(awk -v m="$mb" -v s="$classify_s" 'BEGIN { printf "%.0f", m / s }') MiB/s"
echo "grep -F:   ${grep_s} s  $(awk -v m="$mb" -v s="$grep_s" 'BEGIN { printf "%.0f", m / s }') MiB/s  (\"terminated with error\", $grep_count matches)"
echo "ratio:     classify takes $(awk -v a="$classify_s" -v b="$grep_s" 'BEGIN { printf "%.1f", a / b }')x the time of grep -F"
if [[ "$verdict" != "state-store-error "* || $code -ne 17 ]]; then
  echo "UNEXPECTED verdict (exit $code): expected state-store-error" >&2
  exit 1
fi
if [[ -z "${BENCH_DIR:-}" ]]; then rm -rf "$dir"; fi
