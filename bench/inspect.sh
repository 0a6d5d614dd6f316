#!/usr/bin/env bash
# Benchmark of `rehearse inspect --json` on a large generated checkpoint (not a timed test).
#
#   bench/inspect.sh [BATCHES] [PARTITIONS] [OPERATORS]      (default 10000 200 5)
#
# Generates a checkpoint shaped like one Spark 3.5 writes for a Kafka query (offsets/ and commits/
# with BATCHES files each, a Kafka source with 8 partitions, OPERATORS HDFS-backed operators with
# PARTITIONS partitions each holding a snapshot and the 10 deltas after it, Hadoop .crc side
# files beside every file), then times, in the same run and on a warm page cache:
#   - `rehearse inspect --json` (release build),
#   - a plain recursive listing of the same tree (`find DIR`),
# and prints both and their ratio. Target: inspect under 0.2 s and at most 3x the listing.
# Each timing is the best of 5 runs. The tree is removed afterwards unless KEEP=1.
set -euo pipefail

batches="${1:-10000}"
partitions="${2:-200}"
operators="${3:-5}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/rehearse-bench.XXXXXX")"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
ckpt="$work/checkpoint"

echo "generating $batches batches, $operators operators x $partitions partitions in $ckpt" >&2
python3 - "$ckpt" "$batches" "$partitions" "$operators" <<'PY'
import os, sys
ckpt, batches, partitions, operators = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
conf = ('{"spark.sql.streaming.stateStore.providerClass":"org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",'
        '"spark.sql.streaming.join.stateFormatVersion":"2","spark.sql.streaming.stateStore.compression.codec":"lz4",'
        '"spark.sql.streaming.stateStore.rocksdb.formatVersion":"5","spark.sql.streaming.statefulOperator.useStrictDistribution":"true",'
        '"spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion":"2","spark.sql.streaming.multipleWatermarkPolicy":"min",'
        '"spark.sql.streaming.aggregation.stateFormatVersion":"2","spark.sql.shuffle.partitions":"%d"}' % partitions)
crc = b"crc\x00\x00\x00\x02\x00\x12\x34\x56\x78"

def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    d, n = os.path.split(path)
    with open(os.path.join(d, "." + n + ".crc"), "wb") as f:
        f.write(crc)

for d in ("offsets", "commits", "sources/0"):
    os.makedirs(os.path.join(ckpt, d), exist_ok=True)
write(os.path.join(ckpt, "metadata"), b'{"id":"6f1c1a3e-9d7b-4c51-a6e2-0d6c7f1e2b3a"}')
write(os.path.join(ckpt, "sources/0/0"), b'\x00v1\n{"events":{"0":0,"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0}}')
for b in range(batches):
    kafka = "{\"events\":{%s}}" % ",".join('"%d":%d' % (p, (b + 1) * 100 + p) for p in range(8))
    meta = '{"batchWatermarkMs":%d,"batchTimestampMs":%d,"conf":%s}' % (b * 1000, 1700000000000 + b * 1000, conf)
    write(os.path.join(ckpt, "offsets", str(b)), ("v1\n%s\n%s" % (meta, kafka)).encode())
    write(os.path.join(ckpt, "commits", str(b)), ('v1\n{"nextBatchWatermarkMs":%d}' % (b * 1000)).encode())
latest = batches  # state version of the last committed batch
snapshot = latest - 10
for op in range(operators):
    for p in range(partitions):
        d = os.path.join(ckpt, "state", str(op), str(p))
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "%d.snapshot" % snapshot), b"\x00" * 64)
        for v in range(snapshot + 1, latest + 1):
            write(os.path.join(d, "%d.delta" % v), b"\x00" * 32)
    os.makedirs(os.path.join(ckpt, "state", str(op), "0", "_metadata"), exist_ok=True)
    write(os.path.join(ckpt, "state", str(op), "0", "_metadata", "schema"), b"\x00\x02v2")
PY

echo "building rehearse (release)" >&2
(cd "$root" && cargo build --release --quiet --bin rehearse)
bin="$root/target/release/rehearse"
[ -n "${CARGO_TARGET_DIR:-}" ] && bin="$CARGO_TARGET_DIR/release/rehearse"

files=$(find "$ckpt" -type f | wc -l)
best() { # command... ; prints the best wall time of 5 runs in seconds
  local best_ns=""
  for _ in 1 2 3 4 5; do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    local ns=$((t1 - t0))
    if [ -z "$best_ns" ] || [ "$ns" -lt "$best_ns" ]; then best_ns=$ns; fi
  done
  awk -v ns="$best_ns" 'BEGIN { printf "%.4f", ns / 1e9 }'
}
inspect_json() { "$bin" inspect --json "$ckpt" || [ $? -eq 5 ]; }
# Warm the page cache once, so both timings read from memory.
find "$ckpt" >/dev/null
inspect_json >/dev/null

listing=$(best find "$ckpt")
inspect=$(best inspect_json)
ratio=$(awk -v a="$inspect" -v b="$listing" 'BEGIN { printf "%.2f", a / b }')
echo "checkpoint: $batches batches, $operators operators x $partitions partitions, $files files"
echo "rehearse inspect --json: ${inspect} s"
echo "find (plain listing):    ${listing} s"
echo "ratio:                   ${ratio}x   (target: < 0.2 s and <= 3x)"
