#!/usr/bin/env bash
# Benchmark of restarting large RocksDB state on a cluster (issue 16 §3; not a timed test): a
# checkpoint generated once with real Spark (dropDuplicates without a watermark, so every record
# stays in state; RocksDB provider; STATE_PARTITIONS shuffle partitions = state partitions),
# restarted on local[2], on a standalone cluster of 1 worker and of 2 workers, in one run. Side
# by side: time to verdict, wall time, peak memory per container (docker stats, sampled every
# ~2 s), and the shares of the wall time spent copying the checkpoint, starting Spark (and the
# cluster) until the first batch, and in the first batch (its triggerExecution; addBatch is where
# the executors load their state stores).
#
#   bench/cluster.sh        REHEARSE=path/to/rehearse, and (defaults):
#     STATE_PARTITIONS=64  KAFKA_PARTITIONS=4  RECORDS=20000 (per Kafka partition per batch)
#     BATCHES=3  VALUE_BYTES=1000  SOURCE=3.5.3  TARGET=3.5.3  WORKER_MEMORY=2048  TIMEOUT=1800
#
# State on disk ≈ KAFKA_PARTITIONS × RECORDS × BATCHES × VALUE_BYTES: the padding is the
# template's {random:VALUE_BYTES} (pseudo-random printable characters, deterministic per record),
# which RocksDB's LZ4 cannot compress; the script prints the real size of state/ in the generated
# checkpoint (on disk, `du`), not the input's. RocksDB's state/ (every retained version's SST
# files) came to 1.7 × the records' bytes at RECORDS=22000 (442 MiB) and 4.5 × at
#   KAFKA_PARTITIONS=4 RECORDS=105000 BATCHES=3 VALUE_BYTES=1000 bench/cluster.sh
# (5.5 GiB; about 45 minutes on 2 shared cores; needs ~15 GB of free disk while it runs).
# Disk: the checkpoint, Kafka's log of the records and one sandbox copy at a time (each run's
# copy is deleted after it; its event log stays). Needs Docker and the images.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${REHEARSE:-target/release/rehearse}
[ -x "$bin" ] || cargo build --release --quiet
partitions=${STATE_PARTITIONS:-64}
kparts=${KAFKA_PARTITIONS:-4}
records=${RECORDS:-20000}
batches=${BATCHES:-3}
value_bytes=${VALUE_BYTES:-1000}
source=${SOURCE:-3.5.3}
target=${TARGET:-3.5.3}
worker_memory=${WORKER_MEMORY:-2048}
timeout=${TIMEOUT:-1800}
out=$(mktemp -d)
cache=${BENCH_CACHE:-$out/cache}
cat >"$out/bench.toml" <<EOF
name = "bench-cluster"
targets = ["$target"]
timeout_seconds = $timeout

[checkpoint.generate]
spark = "$source"
batches = $batches
records_per_batch = $records
extra_args = ["--max-offsets-per-trigger", "$((kparts * records))"]

[job]
file = "$PWD/scenarios/jobs/dedup.py"
args = ["--checkpoint", "{checkpoint}", "--bootstrap-servers", "{bootstrap_servers}",
        "--output", "{output}", "--topic", "{topic.events}", "--no-watermark"]

[job.conf]
"spark.sql.shuffle.partitions" = "$partitions"
"spark.sql.streaming.stateStore.providerClass" = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
"spark.driver.memory" = "2g"

[[topics]]
name = "events"
partitions = $kparts
template = '{"n":{n},"p":{partition},"pad":"{random:$value_bytes}"}'
fresh_records = 100
EOF

# run LABEL ARGS…: one rehearsal, stderr lines timestamped, docker stats sampled for the
# containers of this rehearse process.
run() {
	local label=$1
	shift
	local start end code=0
	start=$(date +%s.%N)
	cut -d' ' -f1-3 /proc/loadavg >"$out/$label.load"
	REHEARSE_CACHE_DIR=$cache "$bin" run "$out/bench.toml" --json --keep --report-dir "$out/sandboxes-$label" "$@" \
		>"$out/$label.json" 2> >(while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$out/$label.err") &
	local pid=$!
	(
		while kill -0 "$pid" 2>/dev/null; do
			ids=$(docker ps -q --filter "label=org.rehearse.pid=$pid")
			[ -n "$ids" ] && docker stats --no-stream --format '{{.Name}} {{.MemUsage}}' $ids 2>/dev/null
			sleep 1
		done
	) >"$out/$label.stats" &
	local sampler=$!
	wait "$pid" || code=$?
	wait "$sampler" || true
	end=$(date +%s.%N)
	if [ ! -s "$out/$label.json" ]; then
		echo "rehearse run ($label) exited $code with no report; see $out/$label.err" >&2
		exit 1
	fi
	python3 -c "print($end - $start)" >"$out/$label.wall"
	cut -d' ' -f1-3 /proc/loadavg >>"$out/$label.load"
	# The sandbox's copy of the checkpoint is not needed any more (its event log and logs are).
	rm -rf "$out/sandboxes-$label"/*/checkpoint
}

mkdir -p "$out"/sandboxes-{local,w1,w2}
echo "generating the source checkpoint (Spark $source, $batches batches × $kparts × $records records of ~$value_bytes B, $partitions state partitions) …" >&2
gen_start=$(date +%s)
run local
echo "  generation + local[2] restart: $(($(date +%s) - gen_start)) s" >&2
run w1 --runtime standalone --workers 1 --worker-cores 2 --worker-memory "$worker_memory"
run w2 --runtime standalone --workers 2 --worker-cores 1 --worker-memory "$worker_memory"

python3 - "$out" <<'PY'
import glob, json, os, re, subprocess, sys
out = sys.argv[1]
report = json.load(open(f"{out}/local.json"))
ckpt = report["source_checkpoint"]
state = subprocess.run(["du", "-sb", os.path.join(ckpt, "state")], capture_output=True, text=True).stdout.split()[0]
nparts = len([d for d in glob.glob(os.path.join(ckpt, "state", "0", "*")) if os.path.basename(d).isdigit()])
print(f"source checkpoint {ckpt}")
print(f"  state/: {int(state) / 2**20:.1f} MiB over {nparts} state partitions (RocksDB)")
def mib(s):
    m = re.match(r"([\d.]+)\s*([KMG]i?B)", s)
    if not m:
        return 0.0
    v, u = float(m.group(1)), m.group(2)
    return v * {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024, "kB": 1 / 1024, "MB": 1, "GB": 1024}.get(u, 1)
rows = []
for label, name in [("local", "local[2]"), ("w1", "1 worker x 2 cores"), ("w2", "2 workers x 1 core")]:
    r = json.load(open(f"{out}/{label}.json"))
    t = r["trials"][0]
    wall = float(open(f"{out}/{label}.wall").read())
    lines = [l.split(" ", 1) for l in open(f"{out}/{label}.err") if " " in l]
    t_trial = next((float(ts) for ts, l in lines if l.startswith("rehearsing on")), None)
    t_copied = next((float(ts) for ts, l in lines if "copied and hashed" in l), None)
    copy = (t_copied - t_trial) if t_trial and t_copied else float("nan")
    first = None
    for ev in glob.glob(f"{out}/sandboxes-{label}/*/eventlog/*"):
        for l in open(ev):
            if "QueryProgressEvent" in l:
                p = json.loads(l)["progress"]
                if first is None or p["batchId"] < first["batchId"]:
                    first = p
    trig = first["durationMs"].get("triggerExecution", 0) / 1000 if first else float("nan")
    add = first["durationMs"].get("addBatch", 0) / 1000 if first else float("nan")
    peaks = {}
    for l in open(f"{out}/{label}.stats"):
        parts = l.split()
        if len(parts) >= 2:
            name_ = re.sub(r"-[0-9a-f]{8,}$", "", parts[0])
            peaks[name_] = max(peaks.get(name_, 0), mib(parts[1]))
    startup = t["seconds_to_verdict"] - trig
    rows.append((name, t["verdict"], t["seconds_to_verdict"], wall, copy, startup, trig, add, t.get("executors"), peaks))
print()
print(f"{'runtime':22} {'verdict':10} {'verdict s':>9} {'wall s':>7} {'copy':>12} {'start→batch':>13} {'first batch':>13} {'addBatch s':>10}")
for name, verdict, sv, wall, copy, startup, trig, add, ex, peaks in rows:
    pct = lambda x: f"{x:6.1f} ({100 * x / wall:3.0f}%)"
    print(f"{name:22} {verdict:10} {sv:9.1f} {wall:7.1f} {pct(copy):>12} {pct(startup):>13} {pct(trig):>13} {add:10.1f}")
print()
print("copy: the sandbox copy of the checkpoint; start→batch: from the trial's start to the first")
print("batch (Spark, the cluster, the executors); first batch: its triggerExecution, whose addBatch")
print("is where the executors load their state stores (RocksDB copies the checkpoint's files to its")
print("local dir there); wall: the whole run (the local[2] run includes the generation).")
for label in ("local", "w1", "w2"):
    print(f"load average (1, 5, 15 min) at the start and the end of {label}: " + " → ".join(l.strip() for l in open(f"{out}/{label}.load")))
print()
print("peak memory per container (MiB, docker stats):")
for name, *_, ex, peaks in rows:
    print(f"  {name:22} " + ", ".join(f"{k.replace('rehearse-', '')} {v:.0f}" for k, v in sorted(peaks.items())))
    if ex:
        print(f"  {'':22} executors: {ex['count']} on {', '.join(ex['workers'])}")
PY
echo "(reports, timestamped progress and samples in $out; the kept sandboxes too: rm -rf $out)"
