#!/usr/bin/env bash
# Benchmark of the sandbox copy (issue 11 §6; not a timed test).
#
#   bench/copy.sh [SIZE_MIB]      (default 2048: about 2 GiB)
#
# Generates a checkpoint shaped like one Spark 3.5 writes after long running, with 100 retained
# batches (offsets/commits 101..200, Hadoop .crc side files) and two stateful operators on
# spark.sql.shuffle.partitions=2:
#   - operator 0, HDFS-backed: per partition 100 deltas (102..201) and a snapshot every 10
#     versions (110..200), snapshot:delta bytes 10:1, a third of SIZE;
#   - operator 1, RocksDB: per partition 100 zips (102..201) whose metadata names SST files of
#     64 MiB and more in SSTs/ (a new SST generation every 10 versions; zip 201 names the
#     newest), two thirds of SIZE.
# Then prints side by side, in one run, on a warm page cache, the median of 3 rounds (the cases
# of a round run one after another, rounds interleaved, so a busy machine weighs on all alike):
#   - rehearse's copy + source verification (examples/copy_bench.rs):
#       working set for a 3.5 target, working set for any target (4.2 adds the snapshot before),
#       full copy (the default method: a reflink where the filesystem shares extents, else
#       read-hash-write in one pass), full copy with copy_file_range then hashing the copy;
#   - `cp -a` + `b3sum` of both trees (all files of the source and of the copy);
#   - peak memory of each (/usr/bin/time -v, maximum resident set);
#   - working-set bytes against the whole checkpoint;
#   - from S3 (the MinIO test server, when scripts/setup-test-servers.sh has started it and
#     /tmp/rehearse-test-servers.env exists): the checkpoint uploaded to a fresh prefix, then
#     rehearse's copy from it (working set, full) against `aws s3 cp --recursive` of the same
#     prefix (awscli, default 10 requests in flight; rehearse: 8), removed afterwards.
#     S3=0 skips this part; awscli is installed with pip when missing.
# Targets: full copy + verify <= 1.0x cp -a + b3sum, peak memory <= 64 MiB, working set <= 10%.
# The driver: COPY_BENCH_PROFILE=release (default) or dev (the debug build: blake3 is built
# optimised there too, Cargo.toml), or COPY_BENCH_BIN=PATH for a driver built elsewhere.
# b3sum: `cargo install b3sum` (falls back to Python's blake3 from PyPI if missing).
# The trees are removed afterwards unless KEEP=1.
set -euo pipefail

size_mib="${1:-2048}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/rehearse-copy-bench.XXXXXX")"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
src="$work/checkpoint"

echo "generating a ~${size_mib} MiB checkpoint in $src" >&2
python3 - "$src" "$size_mib" <<'PY'
import json, os, sys, zipfile
src, size_mib = sys.argv[1], int(sys.argv[2])
MiB = 1 << 20
parts = 2
conf = json.dumps({
    "spark.sql.streaming.stateStore.providerClass": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "spark.sql.streaming.stateStore.compression.codec": "lz4",
    "spark.sql.streaming.aggregation.stateFormatVersion": "2",
    "spark.sql.streaming.multipleWatermarkPolicy": "min",
    "spark.sql.shuffle.partitions": str(parts),
}, separators=(",", ":"))
crc = b"crc\x00\x00\x00\x02\x00\x12\x34\x56\x78"
chunk = os.urandom(8 * MiB)

def write(path, data=None, size=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        if data is not None:
            f.write(data)
        else:
            left = size
            while left > 0:
                n = min(left, len(chunk))
                f.write(chunk[:n])
                left -= n
    d, n = os.path.split(path)
    with open(os.path.join(d, "." + n + ".crc"), "wb") as f:
        f.write(crc)

write(f"{src}/metadata", b'{"id":"6f1c1a3e-9d7b-4c51-a6e2-0d6c7f1e2b3a"}')
write(f"{src}/sources/0/0", b'\x00v1\n{"events":{"0":0,"1":0}}')
for b in range(101, 201):
    meta = '{"batchWatermarkMs":0,"batchTimestampMs":%d,"conf":%s}' % (1700000000000 + b * 1000, conf)
    write(f"{src}/offsets/{b}", ("v1\n%s\n{\"events\":{\"0\":%d,\"1\":%d}}" % (meta, b * 100, b * 100)).encode())
    write(f"{src}/commits/{b}", b'v1\n{"nextBatchWatermarkMs":0}')

# HDFS-backed operator: a third of the bytes; 10 snapshots + 100 deltas per partition, 10:1.
hdfs = size_mib * MiB // 3 // parts
delta = hdfs // (10 * 10 + 100)
for p in range(parts):
    d = f"{src}/state/0/{p}"
    for v in range(102, 202):
        write(f"{d}/{v}.delta", size=delta)
    for v in range(110, 201, 10):
        write(f"{d}/{v}.snapshot", size=10 * delta)
    if p == 0:
        write(f"{d}/_metadata/schema", b"\x00\x02v2")

# RocksDB operator: two thirds; a generation of SSTs every 10 versions (>= 64 MiB each).
rocks = size_mib * MiB * 2 // 3 // parts
gens = 10
sst = max(64 * MiB, rocks // gens)
for p in range(parts):
    d = f"{src}/state/1/{p}"
    names = []
    for g in range(gens):
        name = "%06d-%08x-0000-4000-8000-%012x.sst" % (g + 8, p * 100 + g, g)
        write(f"{d}/SSTs/{name}", size=sst + g * MiB)
        names.append((name, sst + g * MiB))
    for v in range(102, 202):
        g = min((v - 102) // 10, gens - 1)
        name, size = names[g]
        metadata = "v1\n" + json.dumps({"sstFiles": [{"localFileName": "%06d.sst" % (g + 8), "dfsSstFileName": name, "sizeBytes": size}], "numKeys": 1})
        path = f"{d}/{v}.zip"
        os.makedirs(d, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("metadata", metadata)
            z.writestr("CURRENT", "MANIFEST-000001\n")
            z.writestr("OPTIONS-000005", "# options\n" * 100)
        with open(os.path.join(d, "." + str(v) + ".zip.crc"), "wb") as f:
            f.write(crc)
    if p == 0:
        write(f"{d}/_metadata/schema", b"\x00\x02v2")
PY

profile="${COPY_BENCH_PROFILE:-release}"
if [ -n "${COPY_BENCH_BIN:-}" ]; then
  bench="$COPY_BENCH_BIN" # a driver built some other way (say how in the figures you quote)
  driver="$bench"
else
  echo "building the copy driver ($profile)" >&2
  (cd "$root" && cargo build --profile "$profile" --quiet --example copy_bench)
  target_dir="${CARGO_TARGET_DIR:-$root/target}"
  dir="$profile"; [ "$profile" = dev ] && dir=debug
  bench="$target_dir/$dir/examples/copy_bench"
  driver="$profile build"
fi

if command -v b3sum >/dev/null; then
  b3() { find "$1" -type f -print0 | xargs -0 b3sum >/dev/null; }
  b3name="b3sum $(b3sum --version | awk '{print $2}')"
else
  python3 -c 'import blake3' 2>/dev/null || pip install --quiet blake3
  b3() { python3 -c '
import blake3, os, sys
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        h = blake3.blake3(max_threads=blake3.blake3.AUTO)
        h.update_mmap(os.path.join(d, f))
        h.hexdigest()
' "$1"; }
  b3name="python blake3 (update_mmap, all threads)"
fi

src_files=$(find "$src" -type f | wc -l)
src_bytes=$(du -sb "$src" | awk '{print $1}')
echo "checkpoint: $src_files files, $((src_bytes / 1048576)) MiB; warming the page cache" >&2
cat $(find "$src" -type f) >/dev/null

# S3: the same checkpoint in a fresh prefix of the MinIO test server.
s3=0
if [ "${S3:-1}" = 1 ] && [ -f /tmp/rehearse-test-servers.env ]; then
  # shellcheck disable=SC1091
  source /tmp/rehearse-test-servers.env
  if curl -sf -o /dev/null "$S3_ENDPOINT/minio/health/live"; then
    s3=1
  else
    echo "S3: the test server at $S3_ENDPOINT does not answer (scripts/setup-test-servers.sh); skipped" >&2
  fi
fi
if [ "$s3" = 1 ]; then
  command -v aws >/dev/null || pip install --quiet awscli
  export AWS_ACCESS_KEY_ID="$S3_ACCESS_KEY_ID" AWS_SECRET_ACCESS_KEY="$S3_SECRET_ACCESS_KEY"
  export AWS_REGION="$S3_REGION" AWS_DEFAULT_REGION="$S3_REGION"
  export AWS_ENDPOINT_URL="$S3_ENDPOINT" AWS_ALLOW_HTTP=true
  prefix="bench-copy-$(basename "$work")"
  url="s3://$S3_BUCKET/$prefix/checkpoint"
  echo "uploading the checkpoint to $url" >&2
  aws --endpoint-url "$S3_ENDPOINT" s3 cp --recursive --quiet "$src" "$url"
  trap 'aws --endpoint-url "$S3_ENDPOINT" s3 rm --recursive --quiet "s3://$S3_BUCKET/$prefix/" || true; [ "${KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
  s3_client="awscli $(aws --version 2>&1 | awk '{print $1}' | cut -d/ -f2)"
fi

# The cases, in order: NAME and the command (a shell string).
names=(cp+b3sum ws-3.5 ws-any full full-range)
cmds=(
  "$(declare -f b3); cp -a '$src' '$work/copy' && b3 '$src' && b3 '$work/copy'"
  "'$bench' '$src' '$work/copy' --target 3.5.3"
  "'$bench' '$src' '$work/copy'"
  "'$bench' '$src' '$work/copy' --full"
  "'$bench' '$src' '$work/copy' --full --method range"
)
if [ "$s3" = 1 ]; then
  names+=(s3-ws-3.5 s3-full s3-aws-cp)
  cmds+=(
    "'$bench' '$url' '$work/copy' --target 3.5.3"
    "'$bench' '$url' '$work/copy' --full"
    "aws --endpoint-url '$S3_ENDPOINT' s3 cp --recursive --quiet '$url' '$work/copy'"
  )
fi

# 3 rounds; per case: wall milliseconds, peak RSS (KiB), the driver's last line.
declare -A ms rss line
for round in 1 2 3; do
  echo "round $round of 3" >&2
  for i in "${!names[@]}"; do
    rm -rf "$work/copy"
    t0=$(date +%s%N)
    out=$(/usr/bin/time -v bash -c "${cmds[$i]}" 2>"$work/time.txt") || {
      cat "$work/time.txt" >&2
      exit 1
    }
    t1=$(date +%s%N)
    ms[$i]="${ms[$i]:-} $(((t1 - t0) / 1000000))"
    r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
    [ "$r" -gt "${rss[$i]:-0}" ] && rss[$i]=$r
    [ -n "$out" ] && line[$i]="$out"
  done
done
rm -rf "$work/copy"
median() { printf '%s\n' $1 | sort -n | sed -n 2p; }

row() { # NAME MS BASE_MS RSS DETAIL
  awk -v n="$1" -v ms="$2" -v base="$3" -v rss="$4" -v d="$5" \
    'BEGIN{printf "%-12s %9.2f %6.2fx %9.1f  %s\n", n, ms/1000, ms/base, rss/1024, d}'
}
detail() { # the driver's line → "N files, M MiB, P% (copy + verify)"
  set -- $1
  local files bytes cs vs
  files=$(printf '%s\n' "$@" | sed -n 's/^files=//p')
  bytes=$(printf '%s\n' "$@" | sed -n 's/^bytes=//p')
  cs=$(printf '%s\n' "$@" | sed -n 's/^copy_s=//p')
  vs=$(printf '%s\n' "$@" | sed -n 's/^verify_s=//p')
  awk -v f="$files" -v b="$bytes" -v t="$src_bytes" -v cs="$cs" -v vs="$vs" \
    'BEGIN{printf "%d files, %.1f MiB, %.1f%% (last round: copy %.2fs + verify %.2fs)", f, b/1048576, 100*b/t, cs, vs}'
}

echo
echo "checkpoint: $src_files files, $(awk -v b="$src_bytes" 'BEGIN{printf "%.2f GiB", b/1073741824}') on $(df -T "$work" | awk 'NR==2 {print $2}'); driver: $driver; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "baseline: cp -a + $b3name of both trees"
printf '%-12s %9s %7s %9s  %s\n' "what" "seconds" "× base" "peak MiB" "copied (files, bytes, share of the checkpoint)"
base_ms=$(median "${ms[0]}")
for i in "${!names[@]}"; do
  case "${names[$i]}" in
    cp+b3sum) d="$src_files files, $((src_bytes / 1048576)) MiB, 100% (copy + hash of both trees)" ;;
    s3-aws-cp) d="$src_files files, $((src_bytes / 1048576)) MiB, 100% (download only, no hash)" ;;
    *) d=$(detail "${line[$i]}") ;;
  esac
  if [ "${names[$i]}" = s3-ws-3.5 ]; then
    echo "from S3 ($url on MinIO at $S3_ENDPOINT), × the plain download: $s3_client s3 cp --recursive"
    base_ms=$(median "${ms[$((${#names[@]} - 1))]}")
  fi
  row "${names[$i]}" "$(median "${ms[$i]}")" "$base_ms" "${rss[$i]}" "$d"
done
echo "(seconds: median of 3 wall times, including the driver's start and inspect; peak: largest of 3)"
